/**
 * The characters of a text as a user counts them (Unicode code points): a length limit of 200
 * characters takes 200 emoji, as the OpenAPI `maxLength` and MySQL's utf8mb4 `varchar(200)` do,
 * where `text.length` would count each of them twice (UTF-16 units).
 */
export function characterCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether `text` is Unicode text: JSON can carry a UTF-16 surrogate outside a pair (`"\ud800"`),
 * which no UTF-8 column stores as is (each database put U+FFFD in its place, differently), so a
 * name or description holding one is refused rather than stored altered.
 */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** The message for a field that is not Unicode text (isWellFormedText). */
export const NOT_TEXT = (field: string) => `${field} holds a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape outside a pair): not Unicode text`;
