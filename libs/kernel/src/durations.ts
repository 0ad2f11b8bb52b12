const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses `250ms`, `10s`, `5m`, `2h` (a bare number is milliseconds). Returns null when invalid. */
export function parseDuration(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!match) return null;
  const value = Number(match[1]) * UNIT_MS[match[2] ?? 'ms'];
  return Number.isFinite(value) ? Math.round(value) : null;
}

/** Parses a comma-separated schedule such as `10s,1m,5m`; null when any step is invalid or empty. */
export function parseDurationList(text: string): number[] | null {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => p === '')) return null;
  const values = parts.map(parseDuration);
  return values.every((v): v is number => v !== null) ? values : null;
}
