import { jsonBodyProblem, MAX_JSON_DEPTH } from './json-depth';

const nested = (depth: number, inner: unknown = 1): object => {
  let value: unknown = inner;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value as object;
};

describe(jsonBodyProblem.name, () => {
  it('passes a body within the depth that holds only finite numbers', () => {
    expect(jsonBodyProblem(nested(MAX_JSON_DEPTH))).toBeNull();
    expect(jsonBodyProblem({ big: 1.7976931348623157e308, small: -5e-324, list: [0, -0, 1.5] })).toBeNull();
  });

  it('names nesting past the depth, without recursion even 100,000 levels deep', () => {
    expect(jsonBodyProblem(nested(MAX_JSON_DEPTH + 1))).toMatch(/deeper than 64 levels/);
    expect(jsonBodyProblem(nested(100_000))).toMatch(/deeper than 64 levels/);
  });

  it('takes any JSON value: a scalar is fine, unless it is a number past what a double holds', () => {
    for (const body of [null, true, 'text', 12, 1.7976931348623157e308]) expect(jsonBodyProblem(body)).toBeNull();
  });

  it('names a number past what a double holds, at any place', () => {
    for (const body of [{ n: JSON.parse('1e400') }, { a: [1, { b: JSON.parse('-1e400') }] }, [JSON.parse('1e400')], JSON.parse('1e400')]) {
      expect(jsonBodyProblem(body)).toBe('the request body holds a number too large for a double (beyond ±1.8e308)');
    }
  });
});
