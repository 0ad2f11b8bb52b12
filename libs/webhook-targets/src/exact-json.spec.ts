import { parseExactJson, stringifyExactJson } from './exact-json';

describe(parseExactJson.name, () => {
  const longDigits = '"phone 1234567890123456"';
  it.each([
    ['scalars', '[1, -0, 0.5, -12.25e-3, 1E400, true, false, null, "x"]'],
    ['safe integers beside a run of 16 digits', `{"max": 9007199254740991, "min": -9007199254740991, "s": ${longDigits}}`],
    ['escapes and unicode', String.raw`{"a": "\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00 é", "1234567890123456": []}`],
    ['nesting and whitespace', ' \n{ "a" : [ { "b" : { } } , [ ] ] , "c":"1234567890123456" } \t'],
    ['duplicate keys (the last wins)', '{"k": 1, "k": 2, "n": "12345678901234567"}'],
    ['a __proto__ key, as an own key', '{"__proto__": {"polluted": true}, "n": "12345678901234567"}'],
    ['large floats', '[12345678901234567890.5, 1.2345678901234567e25]'],
  ])('reads %s exactly as JSON.parse does', (_case, text) => {
    expect(parseExactJson(text)).toEqual(JSON.parse(text));
    expect(Object.getPrototypeOf(parseExactJson(text))).toBe(Object.getPrototypeOf(JSON.parse(text)));
  });

  it('keeps integers past 2^53 exact, as BigInts', () => {
    const parsed = parseExactJson('{"id": 820982911946154508, "big": -12345678901234567890, "list": [9007199254740993, 1]}');
    expect(parsed).toEqual({ id: 820982911946154508n, big: -12345678901234567890n, list: [9007199254740993n, 1] });
  });

  it.each(['', '{', '{"a":1,}', '[1,]', '01', '1.', '"\u0001"', "{'a':1}", '{"a":1}x', '[1] [2]', 'nul', '"\\x"', '-'])(
    'refuses %j with a SyntaxError, as JSON.parse does',
    (text) => {
      const padded = `[${text}, 1234567890123456]`;
      for (const candidate of [text, padded]) {
        expect(() => JSON.parse(candidate)).toThrow(SyntaxError);
        expect(() => parseExactJson(candidate)).toThrow(SyntaxError);
      }
    },
  );
});

describe(stringifyExactJson.name, () => {
  it('writes BigInts with their digits, everything else as JSON.stringify does', () => {
    expect(stringifyExactJson({ id: 820982911946154508n, list: [1n, 'x', null, { n: -2n }], s: 'é"' })).toBe(
      '{"id":820982911946154508,"list":[1,"x",null,{"n":-2}],"s":"é\\""}',
    );
    const plain = { a: [1, 'two', { b: null }], c: 'd' };
    expect(stringifyExactJson(plain)).toBe(JSON.stringify(plain));
  });

  it('indents as JSON.stringify does, BigInts or not', () => {
    const shapes = [{ a: [1, { b: [] }, {}], c: { d: 'e' }, f: [] }, [], {}, [[1], [{ x: null }]], 'text'];
    for (const value of shapes) expect(stringifyExactJson(value, 2)).toBe(JSON.stringify(value, null, 2));
    const withBigInts = { a: [1, { b: [] }, {}], c: { d: 'e' }, f: [], id: 12345678901234567890n };
    expect(stringifyExactJson(withBigInts, 2)).toBe(JSON.stringify({ ...withBigInts, id: 1 }, null, 2).replace('"id": 1', '"id": 12345678901234567890'));
  });

  it('round-trips text read by parseExactJson', () => {
    const text = '{"id":820982911946154508,"nested":{"ids":[12345678901234567890,-98765432109876543210]},"x":1.5}';
    expect(stringifyExactJson(parseExactJson(text))).toBe(text);
  });
});
