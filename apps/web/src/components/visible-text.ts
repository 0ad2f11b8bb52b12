/**
 * Characters that change how the text around them reads without showing themselves: C0 and C1
 * controls (tab and line breaks aside), bidirectional embeddings, overrides, isolates and marks
 * (U+202E draws what follows backwards), zero-width characters and the BOM.
 */
const HIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** Content from outside (event data, receivers' answers) with every such character shown as its \uXXXX escape. */
export function visibleText(text: string): string {
  return text.replace(HIDDEN, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
