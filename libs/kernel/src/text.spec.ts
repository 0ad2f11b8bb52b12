import { characterCount, isWellFormedText } from './text';

describe(characterCount.name, () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['é', 1],
    ['😀', 1],
    ['😀'.repeat(200), 200],
    ['a😀b', 3],
    ['\ud83d', 1],
    ['\ude00\ud83d', 2],
    ['x\ud83d', 2],
  ])('counts %j as %d characters', (text, expected) => {
    expect(characterCount(text)).toBe(expected);
    expect(characterCount(text)).toBe([...text].length);
  });
});

describe(isWellFormedText.name, () => {
  it.each(['', 'abc', 'é', '😀', 'a😀b', '\ufffd'])('takes %j as text', (text) => expect(isWellFormedText(text)).toBe(true));
  it.each(['\ud800', 'a\ud800b', '\udc00', 'x\ude00\ud83d', '😀\ud83d'])('refuses %j, a surrogate outside a pair', (text) => expect(isWellFormedText(text)).toBe(false));
});
