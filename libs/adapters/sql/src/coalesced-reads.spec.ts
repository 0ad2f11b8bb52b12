import { CoalescedReads, isPlainRead } from './coalesced-reads';

describe('CoalescedReads', () => {
  const echo = () => {
    const calls: string[][] = [];
    const reads = new CoalescedReads<string, string>(
      async (statements) => {
        calls.push(statements);
        if (statements.length > 1 && statements.includes('bad')) throw new Error('one failed');
        if (statements.includes('bad')) throw new Error('bad read');
        if (statements.includes('down')) throw new Error('unreachable');
        return statements.map((s) => `result of ${s}`);
      },
      (error) => String(error).includes('unreachable'),
    );
    return { calls, reads };
  };

  it('sends the reads of one turn together, at most 32 at a time, and answers each in order', async () => {
    const { calls, reads } = echo();
    const names = Array.from({ length: 40 }, (_, i) => `r${i}`);
    expect(await Promise.all(names.map((n) => reads.read(n)))).toEqual(names.map((n) => `result of ${n}`));
    expect(calls.map((c) => c.length)).toEqual([32, 8]);
    await reads.read('later');
    expect(calls.at(-1)).toEqual(['later']);
  });

  it('runs each read alone after a round trip failed, so that only the failed one fails', async () => {
    const { calls, reads } = echo();
    const settled = await Promise.allSettled([reads.read('a'), reads.read('bad'), reads.read('b')]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : String(s.reason)))).toEqual(['result of a', 'Error: bad read', 'result of b']);
    expect(calls).toEqual([['a', 'bad', 'b'], ['a'], ['bad'], ['b']]);
  });

  it('fails every read of the round trip alike when the database is out of reach, without running them again', async () => {
    const { calls, reads } = echo();
    const settled = await Promise.allSettled([reads.read('a'), reads.read('down')]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toHaveLength(1);
  });

  it.each([
    ['SELECT id FROM webhooks WHERE id = ?', true],
    ['  select 1', true],
    ['SELECT id FROM deliveries WHERE id = ? FOR UPDATE', false],
    ['SELECT id FROM deliveries WHERE id = ? LOCK IN SHARE MODE', false],
    ['SELECT id FROM deliveries FOR SHARE', false],
    ['UPDATE deliveries SET seq = seq', false],
    ['SHOW TABLES', false],
  ])('takes %j for a plain read: %s', (sql, plain) => {
    expect(isPlainRead(sql)).toBe(plain);
  });
});
