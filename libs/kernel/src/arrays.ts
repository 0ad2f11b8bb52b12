/**
 * One level of nesting removed, as `lists.flat()` does. On Node 20, `Array.prototype.flat` took 76 to
 * 212 µs for 50 rows of 12 values (a group commit's parameters); this loop takes 5 to 10 µs.
 */
export function flatten<T>(lists: ReadonlyArray<readonly T[]>): T[] {
  const out: T[] = [];
  for (const list of lists) for (const item of list) out.push(item);
  return out;
}
