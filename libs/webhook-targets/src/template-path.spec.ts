import { parsePath, resolvePath } from './template-path';

describe(parsePath.name, () => {
  it.each([
    ['a', ['a']],
    ['trigger.body.a-b_c$', ['trigger', 'body', 'a-b_c$']],
    ['a[0][12].b', ['a', 0, 12, 'b']],
    ['a["x y"]["q\\"uote"].c', ['a', 'x y', 'q"uote', 'c']],
    ['a["]"]', ['a', ']']],
    ['a.0', ['a', '0']],
  ])('parses %s', (text, segments) => {
    expect(parsePath(text)).toEqual({ ok: true, segments });
  });

  it.each(['', '.a', 'a.', 'a..b', 'a[', 'a[]', 'a[-1]', 'a[1.5]', 'a["x"', 'a["x"]b', "a['x']", 'a b', 'a.b c', 'a[0]x'])('refuses %j', (text) => {
    expect(parsePath(text).ok).toBe(false);
  });
});

describe(resolvePath.name, () => {
  const root = { a: [{ b: 1 }, null], o: { '0': 'zero' } };
  it('follows own properties and indexes', () => {
    expect(resolvePath(root, ['a', 0, 'b'])).toBe(1);
    expect(resolvePath(root, ['a', '0', 'b'])).toBe(1);
    expect(resolvePath(root, ['o', 0])).toBe('zero');
    expect(resolvePath(root, ['a', 1])).toBeNull();
  });
  it('is undefined for anything missing', () => {
    expect(resolvePath(root, ['a', 2])).toBeUndefined();
    expect(resolvePath(root, ['a', 1, 'x'])).toBeUndefined();
    expect(resolvePath(root, ['toString'])).toBeUndefined();
    expect(resolvePath('text', ['length'])).toBeUndefined();
  });
});
