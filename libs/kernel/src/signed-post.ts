import {
  AUTOMATION_SIGNATURE_HEADER,
  SERVICE_SIGNATURE_HEADER,
  sign,
  signServiceSignature,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from '../../signing/src';
import { CallOutcome, callOutcome } from './call-outcome';
import { OutboundHttp, OutboundResult } from './outbound-http';
import { isSuccess } from './retry-schedule';

/**
 * The two kinds of signed POST the server makes, each with the headers CONTRACT gives it:
 * an event delivery (§3: X-Service-Signature and the Standard Webhooks headers, keyed with the
 * webhook's secrets) and a call of a webhook target (§6: the target's custom headers and, when it
 * has a key, X-Service-Automation-Signature).
 */
export type SignedPostFormat =
  | { kind: 'event_delivery'; secrets: readonly string[]; eventId: string; eventType: string; test: boolean }
  | { kind: 'target_call'; signingKey: string | null; customHeaders: Readonly<Record<string, string>> };

export interface SignedPostRequest {
  url: string;
  /** The exact JSON body sent and signed. */
  body: string;
  timeoutMs: number;
  /** When the call starts: its signature's timestamp. */
  at: Date;
  format: SignedPostFormat;
}

export interface SignedPostResult extends OutboundResult {
  /** 2xx, by `isSuccess`. */
  success: boolean;
  outcome: CallOutcome;
  /** Every header sent, those the transport adds included: what an attempt records. */
  requestHeaders: Record<string, string>;
}

/**
 * The headers of a signed POST of `body` at `timestamp` (Unix seconds), in the order and spelling
 * they go on the wire (deliveries lowercase, as receivers' frameworks show them; target calls keep
 * the spelling their owners chose for their custom headers).
 */
export function signedPostHeaders(format: SignedPostFormat, body: string, timestamp: number): Record<string, string> {
  if (format.kind === 'target_call') {
    const headers: Record<string, string> = { ...format.customHeaders, 'Content-Type': 'application/json' };
    if (format.signingKey !== null) headers[AUTOMATION_SIGNATURE_HEADER] = signServiceSignature([format.signingKey], body, timestamp);
    return headers;
  }
  const signed = sign({ secrets: format.secrets, body, timestamp, id: format.eventId });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [SERVICE_SIGNATURE_HEADER.toLowerCase()]: signed.signature,
    'x-service-event-id': format.eventId,
    'x-service-event-type': format.eventType,
    [WEBHOOK_ID_HEADER.toLowerCase()]: signed.webhookId,
    [WEBHOOK_TIMESTAMP_HEADER.toLowerCase()]: signed.webhookTimestamp,
    [WEBHOOK_SIGNATURE_HEADER.toLowerCase()]: signed.webhookSignature,
  };
  if (format.test) headers['x-service-test'] = 'true';
  return headers;
}

/**
 * Signs and sends one POST through the OutboundHttp port and classifies how it ended: the one
 * way event deliveries and automation webhook steps call out. Never throws for network outcomes.
 */
export async function sendSignedPost(http: OutboundHttp, request: SignedPostRequest): Promise<SignedPostResult> {
  const headers = signedPostHeaders(request.format, request.body, Math.floor(request.at.getTime() / 1000));
  const outbound = { url: request.url, body: request.body, timeoutMs: request.timeoutMs, headers };
  const result = await http.post(outbound);
  const success = isSuccess(result.status);
  return {
    ...result,
    success,
    outcome: callOutcome(success, result.status, result.error),
    requestHeaders: http.sentHeaders(outbound),
  };
}
