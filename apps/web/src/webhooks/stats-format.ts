import type { WebhookStats } from '../api/types';

/** Shown for a figure the API did not give (the stats call failed, or there was nothing to measure). */
export const NO_FIGURE = '–';

export function successRateText(stats: WebhookStats | undefined): string {
  if (!stats || stats.successRate === null || stats.successRate === undefined) return NO_FIGURE;
  const rate = stats.successRate;
  if (rate === 1 || rate === 0) return `${rate * 100} %`;
  // Never 100.0 % while some attempt failed, nor 0.0 % while one succeeded.
  const percent = Math.min(99.9, Math.max(0.1, rate * 100));
  return `${percent.toFixed(1)} %`;
}

export function latencyText(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? NO_FIGURE : `${Math.round(ms)} ms`;
}
