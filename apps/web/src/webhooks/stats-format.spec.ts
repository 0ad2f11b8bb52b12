import type { WebhookStats } from '../api/types';
import { successRateText } from './stats-format';

const withRate = (successRate: number | null) => ({ successRate }) as WebhookStats;

describe(successRateText.name, () => {
  it('rounds to a tenth, but never to 100 % while an attempt failed nor to 0 % while one succeeded', () => {
    expect(successRateText(withRate(1))).toBe('100 %');
    expect(successRateText(withRate(0))).toBe('0 %');
    expect(successRateText(withRate(0.9996))).toBe('99.9 %');
    expect(successRateText(withRate(0.0004))).toBe('0.1 %');
    expect(successRateText(withRate(0.8766))).toBe('87.7 %');
    expect(successRateText(withRate(null))).toBe('–');
  });
});
