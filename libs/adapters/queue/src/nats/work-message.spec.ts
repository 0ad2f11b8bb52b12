import { decodeMessage, encodeEnvelope, encodeMessage, MAX_ITEMS_PER_MESSAGE } from './work-message';

describe('work messages', () => {
  const envelope = (n: number) => encodeEnvelope(`wrk_${n}`, n, 0, JSON.stringify({ n }));

  it('writes one item as a bare envelope (what earlier versions wrote and read) and several as an array', () => {
    expect(encodeMessage([envelope(1)]).startsWith('{')).toBe(true);
    expect(encodeMessage([envelope(1), envelope(2)]).startsWith('[')).toBe(true);
  });

  it('reads back every item, in order, with its id, prior deliveries, failures and payload', () => {
    const items = Array.from({ length: MAX_ITEMS_PER_MESSAGE }, (_, n) => envelope(n));
    expect(decodeMessage(encodeMessage(items))).toEqual(items.map((_, n) => ({ id: `wrk_${n}`, prior: n, failures: 0, payload: { n } })));
    expect(decodeMessage(envelope(7))).toEqual([{ id: 'wrk_7', prior: 7, failures: 0, payload: { n: 7 } }]);
  });

  it('reads a message of an earlier version without a failure count as 0 failures', () => {
    expect(decodeMessage('{"id":"wrk_1","prior":2,"payload":{"a":1}}')).toEqual([{ id: 'wrk_1', prior: 2, failures: 0, payload: { a: 1 } }]);
  });

  it('refuses an empty message, one over the item limit, and anything that is not envelopes', () => {
    expect(() => encodeMessage([])).toThrow(RangeError);
    expect(() => encodeMessage(Array.from({ length: MAX_ITEMS_PER_MESSAGE + 1 }, (_, n) => envelope(n)))).toThrow(RangeError);
    expect(() => decodeMessage('[]')).toThrow('not a work envelope');
    expect(() => decodeMessage('[{"id":"wrk_1","prior":0,"payload":{}}, {"id":1}]')).toThrow('not a work envelope');
    expect(() => decodeMessage('null')).toThrow('not a work envelope');
    expect(() => decodeMessage('not json')).toThrow(SyntaxError);
  });
});
