import { characterCount } from './text';

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
