import type { SendWithHistory } from '../../../../libs/send-status/src';
import { inFamilyCase } from '../http/family-casing';
import type { SendStatusV3View } from './send-status.dto';

/** The v3 (camelCase) form of a send status record (CONTRACT §5). */
export function presentV3(send: SendWithHistory): SendStatusV3View {
  return {
    id: send.id,
    status: send.status,
    email: send.email,
    diagCode: send.diagCode,
    bounceType: send.bounceType,
    createdAt: send.createdAt.toISOString(),
    updatedAt: send.updatedAt.toISOString(),
    history: send.history.map((h) => ({ status: h.status, at: h.at.toISOString(), diagCode: h.diagCode })),
  };
}

/** The v2 (snake_case) form: the same record, keys renamed. */
export function presentV2(send: SendWithHistory): object {
  return inFamilyCase(presentV3(send), 'v2');
}

/**
 * The one answer for an unknown id and another account's id, in both families:
 * `{"id":"<id as requested>","status":"not_found"}` (JSON.stringify escapes the id).
 */
export function notFoundBody(id: string): string {
  return JSON.stringify({ id, status: 'not_found' });
}
