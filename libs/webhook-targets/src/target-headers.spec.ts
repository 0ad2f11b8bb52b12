import { TARGET_HEADER_LIMITS, validateTargetHeaders } from './target-headers';

describe(validateTargetHeaders.name, () => {
  it('accepts token names and visible values, keeping their spelling', () => {
    const headers = { Authorization: 'Bearer abc', 'X-Custom_Header.1': 'a\tb "quoted" é', 'x-empty': '' };
    expect(validateTargetHeaders(headers)).toEqual(headers);
  });

  it.each(['Host', 'content-length', 'Content-Type', 'X-SERVICE-AUTOMATION-SIGNATURE', 'Transfer-Encoding', 'connection', 'Keep-Alive', 'Upgrade', 'TE', 'Trailer', 'Expect', 'Proxy-Connection', 'Content-Encoding'])(
    'refuses the server-owned or hop-by-hop header %s',
    (name) => {
      expect(() => validateTargetHeaders({ [name]: 'x' })).toThrow(expect.objectContaining({ code: 'invalid_parameter', message: expect.stringContaining(name) }));
    },
  );

  it.each(['', 'Bad Name', 'colon:', 'x(y)', 'naïve', 'a\nb', 'x'.repeat(TARGET_HEADER_LIMITS.maxNameLength + 1)])('refuses the name %j', (name) => {
    expect(() => validateTargetHeaders({ [name]: 'x' })).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
  });

  it.each([
    ['CR', 'a\rb'],
    ['LF', 'a\nInjected: yes'],
    ['NUL', 'a\0b'],
    ['another control character', 'a\u0007b'],
    ['a character beyond Latin-1', 'snow ☃'],
  ])('refuses a value with %s', (_what, value) => {
    expect(() => validateTargetHeaders({ 'X-A': value })).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
  });

  it('refuses non-string values and non-object sets', () => {
    for (const input of [null, [], 'x', 1]) expect(() => validateTargetHeaders(input)).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
    for (const value of [1, null, true, ['a'], { a: 1 }]) expect(() => validateTargetHeaders({ 'X-A': value })).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
  });

  it('refuses the same name twice in different case', () => {
    expect(() => validateTargetHeaders({ 'X-A': '1', 'x-a': '2' })).toThrow(/more than once/);
  });

  it('bounds count, value length and total size', () => {
    const many = Object.fromEntries(Array.from({ length: TARGET_HEADER_LIMITS.maxCount + 1 }, (_, i) => [`X-H${i}`, 'v']));
    expect(() => validateTargetHeaders(many)).toThrow(/at most 20 entries/);
    expect(() => validateTargetHeaders({ 'X-A': 'v'.repeat(TARGET_HEADER_LIMITS.maxValueLength + 1) })).toThrow(/at most/);
    const big = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`X-H${i}`, 'v'.repeat(4000)]));
    expect(() => validateTargetHeaders(big)).toThrow(/total at most/);
  });

  it('keeps a __proto__ header as an ordinary entry', () => {
    const headers = validateTargetHeaders(JSON.parse('{"__proto__":"x"}'));
    expect(Object.keys(headers)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(headers)).toBe(Object.prototype);
  });
});
