import { Accounts1732230000000 } from './1732230000000-accounts';
import { InstallationSettings1732230000100 } from './1732230000100-installation-settings';
import { EventWebhooks1732230001000 } from './1732230001000-event-webhooks';
import { SendStatus1732230002000 } from './1732230002000-send-status';
import { Automations1732230003000 } from './1732230003000-automations';
import { WorkItems1732240000000 } from './1732240000000-work-items';
import { Outbox1732240000001 } from './1732240000001-outbox';
import { DeliveryStatusIndex1732250000000 } from './1732250000000-delivery-status-index';
import { DeliveryAttempts1732300000000 } from './1732300000000-delivery-attempts';
import { WorkFailures1732300000100 } from './1732300000100-work-failures';
import { Operators1732310000000 } from './1732310000000-operators';
import { WebhookDisabledReason1732330000000 } from './1732330000000-webhook-disabled-reason';
import { EventFeedIndexes1732330000100 } from './1732330000100-event-feed-indexes';
import { RetentionIndexes1732400000000 } from './1732400000000-retention-indexes';
import { Utf8mb4Everywhere1732400000100 } from './1732400000100-utf8mb4-everywhere';
import { RunNextAt1732410000000 } from './1732410000000-run-next-at';
import { WebhookAttemptStats1732600000000 } from './1732600000000-webhook-attempt-stats';
import { DropRedundantEventsAccountIndex1732700000000 } from './1732700000000-drop-redundant-events-account-index';
import { IdsCompareBytes1732800000000 } from './1732800000000-ids-compare-bytes';
import { RetryDeliveriesCancelledByTally1732800000100 } from './1732800000100-retry-deliveries-cancelled-by-tally';
import { PreviousSecrets1732900000000 } from './1732900000000-previous-secrets';
import { WebhookPausedUntil1733000000000 } from './1733000000000-webhook-paused-until';
import { TargetHeadersSealed1733100000000 } from './1733100000000-target-headers-sealed';
import { WebhookDeliveryCounts1733200000000 } from './1733200000000-webhook-delivery-counts';
import { AttemptsStatsIndex1733300000000 } from './1733300000000-attempts-stats-index';

/** Every migration, oldest first. A new one is added here in one line. */
export const ALL_MIGRATIONS = [
  Accounts1732230000000,
  InstallationSettings1732230000100,
  EventWebhooks1732230001000,
  SendStatus1732230002000,
  Automations1732230003000,
  WorkItems1732240000000,
  Outbox1732240000001,
  DeliveryStatusIndex1732250000000,
  DeliveryAttempts1732300000000,
  WorkFailures1732300000100,
  Operators1732310000000,
  WebhookDisabledReason1732330000000,
  EventFeedIndexes1732330000100,
  RetentionIndexes1732400000000,
  Utf8mb4Everywhere1732400000100,
  RunNextAt1732410000000,
  WebhookAttemptStats1732600000000,
  DropRedundantEventsAccountIndex1732700000000,
  IdsCompareBytes1732800000000,
  RetryDeliveriesCancelledByTally1732800000100,
  PreviousSecrets1732900000000,
  WebhookPausedUntil1733000000000,
  TargetHeadersSealed1733100000000,
  WebhookDeliveryCounts1733200000000,
  AttemptsStatsIndex1733300000000,
];
