import type { WebhookStats } from '../api/types';

/** Shown for a figure the API did not give (the stats call failed, or there was nothing to measure). */
export const NO_FIGURE = '–';

export function successRateText(stats: WebhookStats | undefined): string {
  if (!stats || stats.successRate === null || stats.successRate === undefined) return NO_FIGURE;
  return `${(stats.successRate * 100).toFixed(stats.successRate === 1 || stats.successRate === 0 ? 0 : 1)} %`;
}

export function latencyText(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? NO_FIGURE : `${Math.round(ms)} ms`;
}
