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
