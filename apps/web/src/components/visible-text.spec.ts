import { visibleText } from './visible-text';

describe(visibleText.name, () => {
  it('shows bidi overrides, controls and zero-width characters as escapes, and leaves the rest', () => {
    expect(visibleText('abc\u202e<img>\u2066x\u2069')).toBe('abc\\u202e<img>\\u2066x\\u2069');
    expect(visibleText('a\u0000b\u001bc\u200bd\ufeff\u0085')).toBe('a\\u0000b\\u001bc\\u200bd\\ufeff\\u0085');
    expect(visibleText('line\n\ttab\r\nZoë 😀 שלום')).toBe('line\n\ttab\r\nZoë 😀 שלום');
  });
});
