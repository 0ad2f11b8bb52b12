import { DomainError } from '../../../../libs/kernel/src';
import { exceedsDepth, MAX_JSON_DEPTH as MAX_BODY_DEPTH } from '../../../../libs/kernel/src';
import { ContractValidationPipe } from './contract-validation.pipe';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

class AnyBody {}

describe(ContractValidationPipe.name, () => {
  const sut = new ContractValidationPipe();

  it('measures nesting without recursion, even 100,000 levels deep', () => {
    expect(exceedsDepth(nested(MAX_BODY_DEPTH), MAX_BODY_DEPTH)).toBe(false);
    expect(exceedsDepth(nested(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH)).toBe(true);
    expect(exceedsDepth(nested(100_000), MAX_BODY_DEPTH)).toBe(true);
    expect(exceedsDepth('text', 1)).toBe(false);
  });

  it('refuses a body nested deeper than the limit with invalid_parameter, not a stack overflow', async () => {
    const deep = { a: nested(10_000) };
    await expect(sut.transform(deep, { type: 'body', metatype: AnyBody })).rejects.toEqual(expect.any(DomainError));
    await expect(sut.transform(deep, { type: 'body', metatype: AnyBody })).rejects.toMatchObject({ code: 'invalid_parameter' });
  });
});
