import type { Webhook } from '../api/types';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';

/** enabled / disabled, and for a disabled webhook when and why (the API's disabledReason). */
export function WebhookState({ webhook }: { webhook: Webhook }) {
  if (webhook.state === 'enabled') {
    return (
      <p class="state">
        <StatusBadge status="enabled" /> Deliveries are on.
      </p>
    );
  }
  return (
    <p class="state">
      <StatusBadge status="disabled" /> Since <Time iso={webhook.disabledAt} />: {disabledReasonText(webhook)} New events are recorded as skipped until you enable it.
    </p>
  );
}

export function disabledReasonText(webhook: Pick<Webhook, 'disabledReason' | 'consecutiveFailures'>): string {
  switch (webhook.disabledReason) {
    case 'consecutive_failures':
      return `disabled by the server after ${webhook.consecutiveFailures} consecutive failed delivery attempts.`;
    case 'manual':
      return 'disabled by hand (the disable action or route).';
    default:
      return 'no reason recorded.';
  }
}
