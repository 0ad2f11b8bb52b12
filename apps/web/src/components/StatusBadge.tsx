const TONES: Record<string, string> = {
  enabled: 'good',
  active: 'good',
  succeeded: 'good',
  delivered: 'good',
  disabled: 'bad',
  failed: 'bad',
  bounced: 'bad',
  not_found: 'bad',
  skipped: 'warn',
  cancelled: 'muted',
  inactive: 'muted',
  draft: 'muted',
  pending: 'info',
  retrying: 'warn',
  running: 'info',
  deferred: 'warn',
};

/** A state in words (never colour alone): the text is the status itself. */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${TONES[status] ?? 'info'}`}>{status.replace(/_/g, ' ')}</span>;
}
