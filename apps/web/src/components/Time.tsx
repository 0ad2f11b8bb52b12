import { formatTime } from './format-time';

/** A timestamp in the dashboard's one format, with the exact UTC value as its machine-readable form. */
export function Time({ iso, fallback = '—' }: { iso: string | null | undefined; fallback?: string }) {
  if (!iso) return <span>{fallback}</span>;
  return (
    <time dateTime={iso} title={iso}>
      {formatTime(iso)}
    </time>
  );
}
