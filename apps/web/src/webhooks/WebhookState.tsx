import type { Webhook } from '../api/types';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';

/** enabled / disabled, and for a disabled webhook when and (as far as the API tells) why. */
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
      <StatusBadge status="disabled" /> Since <Time iso={webhook.disabledAt} />: {disabledReason(webhook)} New events are recorded as skipped until you enable it.
    </p>
  );
}

/**
 * The API has no reason field: a webhook disabled with failures on its counter was most likely
 * disabled by the server after repeated failures; with none, by someone through the API.
 */
export function disabledReason(webhook: Webhook): string {
  const n = webhook.consecutiveFailures;
  return n > 0 ? `after ${n} consecutive failed delivery attempt${n === 1 ? '' : 's'}.` : 'disabled by a user (no failed attempts).';
}
