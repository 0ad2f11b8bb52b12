import { exceedsDepth, MAX_JSON_DEPTH as MAX_BODY_DEPTH } from '../../../../libs/kernel/src';
import { ContractValidationPipe } from './contract-validation.pipe';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

class AnyBody {}

// Depth is checked before any pipe, for every parsed body (create-api-app.ts's preHandler hook;
// test/e2e/hostile-input covers it over HTTP); the measure itself is tested here.
describe(ContractValidationPipe.name, () => {
  const sut = new ContractValidationPipe();

  it('measures nesting without recursion, even 100,000 levels deep', () => {
    expect(exceedsDepth(nested(MAX_BODY_DEPTH), MAX_BODY_DEPTH)).toBe(false);
    expect(exceedsDepth(nested(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH)).toBe(true);
    expect(exceedsDepth(nested(100_000), MAX_BODY_DEPTH)).toBe(true);
    expect(exceedsDepth('text', 1)).toBe(false);
  });

  it('refuses a body that is not a JSON object where an object is declared', async () => {
    await expect(sut.transform([1], { type: 'body', metatype: AnyBody })).rejects.toMatchObject({ code: 'invalid_parameter' });
  });
});
