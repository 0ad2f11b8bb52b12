import { mergeTop } from './list-merge';

const list = (...ids: string[]) => ids.map((id) => ({ id }));

describe(mergeTop.name, () => {
  it('puts newer items on top and keeps the older pages loaded, with their cursor', () => {
    expect(mergeTop(list('c', 'b', 'a'), 'after-a', { items: list('e', 'd', 'c'), nextCursor: 'after-c' })).toEqual({ items: list('e', 'd', 'c', 'b', 'a'), nextCursor: 'after-a' });
  });

  it('takes the page alone when it covers everything shown, or is the whole list', () => {
    expect(mergeTop(list('b', 'a'), 'after-a', { items: list('c', 'b', 'a'), nextCursor: 'after-a2' })).toEqual({ items: list('c', 'b', 'a'), nextCursor: 'after-a2' });
    // an item that left the filter (a status changed) is gone from the whole list
    expect(mergeTop(list('c', 'b', 'a'), 'x', { items: list('d', 'a'), nextCursor: null })).toEqual({ items: list('d', 'a'), nextCursor: null });
  });

  it('starts again from the page when more arrived than a page holds (nothing in common)', () => {
    expect(mergeTop(list('b', 'a'), 'after-a', { items: list('z', 'y'), nextCursor: 'after-y' })).toEqual({ items: list('z', 'y'), nextCursor: 'after-y' });
  });

  it('keeps an item that moved into the range of the page once, from the page', () => {
    const merged = mergeTop([{ id: 'c', v: 1 }, { id: 'b', v: 1 }, { id: 'a', v: 1 }], 'after-a', { items: [{ id: 'c', v: 2 }, { id: 'b', v: 2 }], nextCursor: 'after-b' });
    expect(merged).toEqual({ items: [{ id: 'c', v: 2 }, { id: 'b', v: 2 }, { id: 'a', v: 1 }], nextCursor: 'after-a' });
  });
});
