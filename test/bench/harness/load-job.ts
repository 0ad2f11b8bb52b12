import { sign } from '../../../libs/signing/src';

/**
 * What the load generator is asked to do (one job per process) and what it answers. Bodies are
 * built in the generator from a small description, so the orchestrator never ships 20,000 events
 * over IPC and each event carries the moment it was due (`data.attributes.sentAtMs`, allowed by
 * the free-form `attributes` of `contact.created`), which the receiver subtracts.
 */
export type BodySpec =
  | { kind: 'none' }
  | { kind: 'fixed'; text: string }
  /** One `contact.created` event per request: `{accountId, type, id, data}`. */
  | { kind: 'event'; accountId: number; idPrefix: string }
  /** `{events:[...]}` of `size` events per request, ids numbered across requests. */
  | { kind: 'batch'; accountId: number; idPrefix: string; size: number; total: number }
  /** Baseline (a): the envelope a webhook receives, signed as the server signs it. */
  | { kind: 'signed-envelope'; secret: string; accountId: number; idPrefix: string };

export interface LoadJob {
  origin: string;
  method: 'GET' | 'POST';
  /** Requests go to these paths in turn. */
  paths: string[];
  headers: Record<string, string>;
  body: BodySpec;
  connections: number;
  /** Closed loop: `connections` loops send `requests` in all. Open loop: `rate` requests/s for `seconds`. */
  loop: { kind: 'closed'; requests: number } | { kind: 'open'; rate: number; seconds: number };
  /** Untimed requests sent first (closed loop only), to open connections and warm up. */
  warmup?: number;
  /**
   * Open loop: a path every connection GETs, untimed, before the timed part, so that the timed part
   * measures the server and not TCP handshakes and a cold generator (a closed loop uses `warmup`).
   */
  openWith?: string;
}

export interface LoadResult {
  requests: number;
  /** Answers by HTTP status, and `error` for requests that got no answer. */
  statuses: Record<string, number>;
  /** Events carried by 2xx answers (1 per request except for batches). */
  accepted: number;
  seconds: number;
  /** 2xx answers per second over the run. */
  okPerSecond: number;
  /** Events accepted per second. */
  acceptedPerSecond: number;
  /** Due (open loop) or sent (closed loop) → answer read, in ms. */
  p50: number;
  p99: number;
  /** Epoch ms of the first request sent, the first 2xx answer and the last 2xx answer. */
  firstSentAt: number;
  firstOkAt: number | null;
  lastOkAt: number | null;
  /** One answer body that was not 2xx, for the report. */
  sampleError: string | null;
}

export const EVENT_TYPE = 'contact.created';
const ACCOUNT_NAME = 'Bench';

export function eventData(sentAtMs: number) {
  return { contactId: 9, email: 'zoe@example.org', attributes: { FIRSTNAME: 'Zoë', sentAtMs }, listIds: [3], createdAt: '2025-11-22T02:00:00.000Z' };
}

/** Builds request `i`'s body and extra headers; `dueAt` is its due time in epoch ms. Returns the events it carries. */
export function buildBody(spec: BodySpec, i: number, dueAt: number): { body?: string; headers?: Record<string, string>; events: number } {
  switch (spec.kind) {
    case 'none':
      return { events: 1 };
    case 'fixed':
      return { body: spec.text, events: 1 };
    case 'event':
      return { body: JSON.stringify({ accountId: spec.accountId, type: EVENT_TYPE, id: `${spec.idPrefix}${i}`, data: eventData(dueAt) }), events: 1 };
    case 'batch': {
      const first = i * spec.size;
      const count = Math.max(0, Math.min(spec.size, spec.total - first));
      const events = Array.from({ length: count }, (_, k) => ({ accountId: spec.accountId, type: EVENT_TYPE, id: `${spec.idPrefix}${first + k}`, data: eventData(dueAt) }));
      return { body: JSON.stringify({ events }), events: count };
    }
    case 'signed-envelope': {
      const id = `${spec.idPrefix}${i}`;
      const created = Math.floor(dueAt / 1000);
      const body = JSON.stringify({ id, type: EVENT_TYPE, created, apiVersion: 'v3', account: { id: spec.accountId, name: ACCOUNT_NAME }, data: eventData(dueAt) });
      const signed = sign({ secrets: [spec.secret], body, timestamp: created, id });
      return {
        body,
        events: 1,
        headers: {
          'user-agent': 'webhook-server-bench/1.0',
          'x-service-signature': signed.signature,
          'x-service-event-id': id,
          'x-service-event-type': EVENT_TYPE,
          'webhook-id': signed.webhookId,
          'webhook-timestamp': signed.webhookTimestamp,
          'webhook-signature': signed.webhookSignature,
        },
      };
    }
  }
}

/** Requests a batch job needs to carry `total` events. */
export const batchRequests = (total: number, size: number) => Math.ceil(total / size);
