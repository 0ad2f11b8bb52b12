import { isCurrentWork, nextSeq, rescheduledWork, seqUnchanged } from './work-seq';

describe('work seq', () => {
  it('lets an item act only on a waiting record still at its seq', () => {
    expect(isCurrentWork({ seq: 3 }, true, 3)).toBe(true);
    expect(isCurrentWork({ seq: 4 }, true, 3)).toBe(false);
    expect(isCurrentWork({ seq: 3 }, false, 3)).toBe(false);
  });

  it('guards a write by the seq it was read at', () => {
    expect(seqUnchanged(5, 5)).toBe(true);
    expect(seqUnchanged(6, 5)).toBe(false);
  });

  it('outdates every older item when a record is scheduled anew', () => {
    const seq = nextSeq(7);
    expect(seq).toBeGreaterThan(7);
    expect(isCurrentWork({ seq }, true, 7)).toBe(false);
  });

  it('gives the records a write rescheduled their next seq, due at the given time', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    expect(rescheduledWork([{ id: 'a', seq: 0 }, { id: 'b', seq: 9 }], at)).toEqual([
      { id: 'a', seq: 1, at },
      { id: 'b', seq: 10, at },
    ]);
  });
});
