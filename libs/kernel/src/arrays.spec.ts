import fc from 'fast-check';
import { flatten } from './arrays';

describe(flatten.name, () => {
  it('removes one level of nesting, in order, as Array.prototype.flat does', () => {
    fc.assert(fc.property(fc.array(fc.array(fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.array(fc.integer())))), (lists) => {
      expect(flatten(lists)).toEqual(lists.flat());
    }));
  });
});
