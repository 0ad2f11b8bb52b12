import { bearerToken, generateToken, tokensMatch } from './credentials';

describe(tokensMatch.name, () => {
  it('matches equal tokens and nothing else, whatever the lengths', () => {
    const token = generateToken();
    expect(tokensMatch(token, token)).toBe(true);
    expect(tokensMatch(token + 'x', token)).toBe(false);
    expect(tokensMatch('', token)).toBe(false);
    expect(tokensMatch(token.slice(1), token)).toBe(false);
  });
});

describe(bearerToken.name, () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['Bearer  abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['Bearerabc', null],
    ['Bearer a b', null],
    ['Basic abc', null],
    ['abc', null],
    [undefined, null],
    [['Bearer a', 'Bearer b'], null],
  ])('reads %j as %j', (header, expected) => {
    expect(bearerToken(header as string | string[] | undefined)).toBe(expected);
  });
});
