import { echoed } from './errors';

describe('echoed', () => {
  it('repeats a short printable value as it is', () => {
    expect(echoed('wh_01jd000000000000000000000')).toBe('wh_01jd000000000000000000000');
  });

  it('shows control characters as ? and cuts a long value after 100 characters', () => {
    expect(echoed('wh_\u0000a\nb\u007f')).toBe('wh_?a?b?');
    expect(echoed('x'.repeat(20_000))).toBe(`${'x'.repeat(100)}…`);
  });
});
