import { isTooFarAhead, readIsoInstant, tooFarAheadMessage } from '../../kernel/src';
import { invalidSendParameter } from './send-status.errors';
import { BOUNCE_TYPES, BounceType, isBounceType, isReportableStatus, isSendChannel, REPORTABLE_STATUSES, ReportableStatus, SEND_CHANNELS, SendChannel } from './send-status';

/**
 * Validation of producer input, in the domain so that the single and the batch routes (whose
 * items are validated one by one) apply the same rules.
 */

export const EMAIL_MAX_LENGTH = 254;
export const DIAG_CODE_MAX_LENGTH = 1024;
/** Longer than any id this server issues; a longer one is simply not found. */
export const SEND_ID_MAX_LENGTH = 64;

export interface CreateSendInput {
  accountId: number;
  email: string;
  channel: string;
  /** ISO 8601 with a time zone; in the future makes the send `scheduled`. */
  scheduledAt?: string | null;
  /** ISO 8601 with a time zone: a backfilled send's creation time (default now). */
  createdAt?: string | null;
}

export interface ValidCreateSend {
  accountId: number;
  email: string;
  channel: SendChannel;
  scheduledAt: Date | null;
  createdAt: Date | null;
}

export interface SendReportInput {
  status: string;
  diagCode?: string | null;
  bounceType?: string | null;
  /** ISO 8601 with a time zone: when it happened (default: when the report arrives). */
  at?: string | null;
}

export interface ValidSendReport {
  status: ReportableStatus;
  diagCode: string | null;
  bounceType: BounceType | null;
  at: Date | null;
}

/**
 * The address rule of the event catalog's `format: email` (ajv-formats, full mode), so that every
 * send accepted here can later be carried by its email.* events: ASCII local part, dotted domain.
 */
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

export function parseTimestamp(field: string, value: unknown): Date | null {
  if (value === undefined || value === null) return null;
  const instant = readIsoInstant(value);
  if (!instant.ok && instant.reason === 'format') {
    throw invalidSendParameter(`${field} must be an ISO 8601 timestamp with a time zone, e.g. 2024-11-22T10:00:00Z, or a date (its midnight UTC)`);
  }
  if (!instant.ok || instant.date.getTime() < 0) throw invalidSendParameter(`${field} is not a valid date`);
  return instant.date;
}

/** A time the producer says something happened: a timestamp, not ahead of `nowMs` by more than clocks drift. */
function parseProducerTime(field: string, value: unknown, nowMs: number): Date | null {
  const time = parseTimestamp(field, value);
  if (time && isTooFarAhead(time.getTime(), nowMs)) throw invalidSendParameter(tooFarAheadMessage(field));
  return time;
}

export function validateCreateSend(input: CreateSendInput, nowMs: number): ValidCreateSend {
  if (!Number.isSafeInteger(input.accountId) || input.accountId < 1) throw invalidSendParameter('accountId must be a positive integer');
  if (!isSendChannel(input.channel)) {
    throw invalidSendParameter(`channel must be one of ${SEND_CHANNELS.join(', ')} (campaigns have no send status)`);
  }
  if (typeof input.email !== 'string' || input.email.length > EMAIL_MAX_LENGTH || !EMAIL.test(input.email)) {
    throw invalidSendParameter(`email must be an email address of at most ${EMAIL_MAX_LENGTH} characters`);
  }
  return {
    accountId: input.accountId,
    email: input.email,
    channel: input.channel,
    scheduledAt: parseTimestamp('scheduledAt', input.scheduledAt),
    createdAt: parseProducerTime('createdAt', input.createdAt, nowMs),
  };
}

/** `nowMs` bounds `at`: a report may come late, never from further ahead than clocks drift. */
export function validateReport(input: SendReportInput, nowMs: number, field = ''): ValidSendReport {
  const name = (key: string) => `${field}${key}`;
  if (!isReportableStatus(input.status)) throw invalidSendParameter(`${name('status')} must be one of ${REPORTABLE_STATUSES.join(', ')}`);
  const diagCode = input.diagCode ?? null;
  if (diagCode !== null && (typeof diagCode !== 'string' || diagCode.length > DIAG_CODE_MAX_LENGTH)) {
    throw invalidSendParameter(`${name('diagCode')} must be a string of at most ${DIAG_CODE_MAX_LENGTH} characters`);
  }
  const bounceType = input.bounceType ?? null;
  if (bounceType !== null && !isBounceType(bounceType)) throw invalidSendParameter(`${name('bounceType')} must be one of ${BOUNCE_TYPES.join(', ')}`);
  if (input.status === 'delivered' && (diagCode === null || diagCode.trim() === '')) {
    throw invalidSendParameter(`${name('diagCode')} is required with status delivered (the recipient server's SMTP reply)`);
  }
  if (input.status === 'bounced' && bounceType === null) throw invalidSendParameter(`${name('bounceType')} is required with status bounced (hard or soft)`);
  if (input.status !== 'bounced' && bounceType !== null) throw invalidSendParameter(`${name('bounceType')} is only accepted with status bounced`);
  return { status: input.status, diagCode, bounceType, at: parseProducerTime(name('at'), input.at, nowMs) };
}

const REPORT_ITEM_KEYS = new Set(['id', 'status', 'diagCode', 'bounceType', 'at']);

/** One item of a batch: `{id, status, diagCode?, bounceType?, at?}`, nothing else. */
export function validateReportItem(item: unknown, index: number, nowMs: number): { id: string; report: ValidSendReport } {
  const field = `events[${index}].`;
  if (typeof item !== 'object' || item === null || Array.isArray(item)) throw invalidSendParameter(`events[${index}] must be an object`);
  const record = item as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !REPORT_ITEM_KEYS.has(key));
  if (unknown !== undefined) throw invalidSendParameter(`${field}${unknown.slice(0, 64)} is not an accepted field`);
  if (typeof record.id !== 'string' || record.id.length === 0) throw invalidSendParameter(`${field}id must be a send id (msg_...)`);
  return { id: record.id, report: validateReport(record as unknown as SendReportInput, nowMs, field) };
}
