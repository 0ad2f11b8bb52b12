/**
 * The vocabulary and the transition rule of transactional send status (CONTRACT §4, §5;
 * spec §2.3, §3.1). Pure: no I/O.
 */

export const SEND_STATUSES = ['scheduled', 'queued', 'sent', 'deferred', 'delivered', 'bounced'] as const;
export type SendStatus = (typeof SEND_STATUSES)[number];

/** What a producer may report (`scheduled` and `queued` of a new send are set at creation). */
export const REPORTABLE_STATUSES = ['queued', 'sent', 'deferred', 'delivered', 'bounced'] as const;
export type ReportableStatus = (typeof REPORTABLE_STATUSES)[number];

export const BOUNCE_TYPES = ['hard', 'soft'] as const;
export type BounceType = (typeof BOUNCE_TYPES)[number];

/** Channels with a send status; campaigns have none (spec §2.3). */
export const SEND_CHANNELS = ['api_v3', 'api_v2', 'smtp', 'automation'] as const;
export type SendChannel = (typeof SEND_CHANNELS)[number];

/** `sendingType` of the email.* events: 1 api_v3, 2 api_v2, 3 smtp, 4 automation. */
export const SENDING_TYPES: Readonly<Record<SendChannel, number>> = { api_v3: 1, api_v2: 2, smtp: 3, automation: 4 };

/**
 * Order of the statuses: `scheduled < queued < sent < deferred < delivered | bounced`.
 * `delivered` and `bounced` share the last rank: once either is reached, nothing moves it.
 */
const RANK: Readonly<Record<SendStatus, number>> = { scheduled: 0, queued: 1, sent: 2, deferred: 3, delivered: 4, bounced: 4 };

export function statusRank(status: SendStatus): number {
  return RANK[status];
}

export function isFinal(status: SendStatus): boolean {
  return status === 'delivered' || status === 'bounced';
}

/**
 * What a report does to a send in status `from`:
 * - `move`: the status becomes `to` (and the report joins the history);
 * - `history`: the status stays; the report joins the history only. A late report (lower rank),
 *   a repeated status (a second `deferred`, another `sent`) and anything after a final status
 *   land here.
 */
export type Transition = 'move' | 'history';

export function transition(from: SendStatus, to: SendStatus): Transition {
  return RANK[to] > RANK[from] ? 'move' : 'history';
}

export function isSendStatus(value: unknown): value is SendStatus {
  return typeof value === 'string' && (SEND_STATUSES as readonly string[]).includes(value);
}

export function isReportableStatus(value: unknown): value is ReportableStatus {
  return typeof value === 'string' && (REPORTABLE_STATUSES as readonly string[]).includes(value);
}

export function isBounceType(value: unknown): value is BounceType {
  return typeof value === 'string' && (BOUNCE_TYPES as readonly string[]).includes(value);
}

export function isSendChannel(value: unknown): value is SendChannel {
  return typeof value === 'string' && (SEND_CHANNELS as readonly string[]).includes(value);
}
