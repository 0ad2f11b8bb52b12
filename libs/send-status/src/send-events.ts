import { createHash } from 'node:crypto';
import { NewEvent } from '../../kernel/src';
import { HistoryEntry, SendRecord } from './send';

/**
 * The email.* events a send emits (CONTRACT §4). Their ids are derived from the send id and the
 * event type, so whatever retries a report or a creation, one send has one `email.processed` id
 * and one final-event id: the intake accepts a repeated id once.
 */

export const EMAIL_PROCESSED = 'email.processed';
export const EMAIL_DELIVERED = 'email.delivered';
export const EMAIL_BOUNCED = 'email.bounced';

type SendFacts = Pick<SendRecord, 'id' | 'accountId' | 'email' | 'idSending' | 'sendingType'>;

/** `email.processed`: the send was accepted (the catalog's schema: email, idSending, sendingType, processedAt). */
export function processedEvent(send: SendFacts, processedAt: Date): NewEvent {
  return {
    accountId: send.accountId,
    type: EMAIL_PROCESSED,
    id: sendEventId(send.id, EMAIL_PROCESSED),
    data: { email: send.email, idSending: send.idSending, sendingType: send.sendingType, processedAt: processedAt.toISOString() },
  };
}

/** `email.delivered` or `email.bounced`, for the report that made the send reach that status. */
export function finalEvent(send: SendFacts, report: HistoryEntry): NewEvent {
  if (report.status === 'delivered') {
    return {
      accountId: send.accountId,
      type: EMAIL_DELIVERED,
      id: sendEventId(send.id, EMAIL_DELIVERED),
      data: { email: send.email, idSending: send.idSending, sendingType: send.sendingType, diagCode: report.diagCode, deliveredAt: report.at.toISOString() },
    };
  }
  if (report.status === 'bounced') {
    return {
      accountId: send.accountId,
      type: EMAIL_BOUNCED,
      id: sendEventId(send.id, EMAIL_BOUNCED),
      data: {
        email: send.email,
        idSending: send.idSending,
        sendingType: send.sendingType,
        diagCode: report.diagCode,
        bounceType: report.bounceType,
        bouncedAt: report.at.toISOString(),
      },
    };
  }
  throw new Error(`no final event for status ${report.status}`);
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * `evt_` + the send id's 10 time characters + 16 characters of SHA-256(send id, type): the
 * shape of `newId('evt')`, sorting with the send's creation time, and the same on every retry.
 */
export function sendEventId(sendId: string, type: string): string {
  const body = sendId.startsWith('msg_') ? sendId.slice(4) : '';
  const time = /^[0-9a-z]{10}/.test(body) ? body.slice(0, 10) : base32(createHash('sha256').update(sendId).digest(), 10);
  return `evt_${time}${base32(createHash('sha256').update(`${sendId}|${type}`).digest(), 16)}`;
}

function base32(bytes: Buffer, length: number): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = ((acc << 8) | b) & 0xffff;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      out += CROCKFORD[(acc >> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length === length) break;
  }
  return out;
}
