import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { isValid, isValidStandardWebhook } from '../../../libs/signing/src';
import { epochMs } from '../bench-support';
import { serve } from './ipc';

/**
 * The receiver, a process of its own: a node:http server that answers deliveries (200 at once by
 * default; or after a delay; or with another status) and keeps, per event id, how often it was
 * answered 2xx (duplicates) and when it first arrived, minus the producer's send time carried in
 * the event (`data.attributes.sentAtMs`). Every `sampleEvery`-th delivery has both signatures
 * checked against the webhook secret. Driven by the orchestrator over IPC (receiver-client.ts).
 */
export interface ReceiverMode {
  status: number;
  delayMs: number;
}

export interface ReceiverStats {
  /** Requests received, whatever the answer. */
  received: number;
  /** Distinct event ids answered 2xx. */
  distinct: number;
  /** 2xx answers beyond the first for an event id. */
  duplicates: number;
  /** Epoch ms of the first and the last first-time 2xx delivery. */
  firstAt: number | null;
  lastAt: number | null;
  /** Send → receive latency percentiles over `expected` events (those not received count as infinite: null). */
  p50: number | null;
  p99: number | null;
  max: number | null;
  signaturesChecked: number;
  signaturesFailed: number;
  meanBodyBytes: number;
}

let mode: ReceiverMode = { status: 200, delayMs: 0 };
let secret: string | null = null;
let sampleEvery = 50;
let okCounts = new Map<string, number>();
let latencies: number[] = [];
let received = 0;
let bodyBytes = 0;
let firstAt: number | null = null;
let lastAt: number | null = null;
let signaturesChecked = 0;
let signaturesFailed = 0;
const pendingReplies = new Set<NodeJS.Timeout>();

function reset(): void {
  okCounts = new Map();
  latencies = [];
  received = bodyBytes = signaturesChecked = signaturesFailed = 0;
  firstAt = lastAt = null;
}

function onDelivery(request: IncomingMessage, response: ServerResponse, raw: Buffer): void {
  const at = epochMs();
  received++;
  bodyBytes += raw.length;
  const answer = mode;
  if (answer.status >= 200 && answer.status < 300) record(request, raw, at);
  if (secret !== null && received % sampleEvery === 0) checkSignatures(request, raw, secret);
  const send = () => {
    if (!response.destroyed) response.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.status < 300 ? 'ok' : 'failing on purpose');
  };
  if (answer.delayMs <= 0) return send();
  const timer = setTimeout(() => {
    pendingReplies.delete(timer);
    send();
  }, answer.delayMs);
  pendingReplies.add(timer);
  response.once('close', () => {
    clearTimeout(timer);
    pendingReplies.delete(timer);
  });
}

function record(request: IncomingMessage, raw: Buffer, at: number): void {
  let id = String(request.headers['x-service-event-id'] ?? '');
  let sentAtMs: unknown;
  try {
    const envelope = JSON.parse(raw.toString('utf8')) as { id?: string; data?: { attributes?: { sentAtMs?: unknown } } };
    id ||= String(envelope.id ?? '');
    sentAtMs = envelope.data?.attributes?.sentAtMs;
  } catch {
    // not JSON: counted by id only
  }
  const seen = okCounts.get(id) ?? 0;
  okCounts.set(id, seen + 1);
  if (seen > 0) return;
  firstAt ??= at;
  lastAt = at;
  if (typeof sentAtMs === 'number') latencies.push(at - sentAtMs);
}

function checkSignatures(request: IncomingMessage, raw: Buffer, key: string): void {
  signaturesChecked++;
  const header = (name: string) => String(request.headers[name] ?? '');
  const stripe = isValid(raw, header('x-service-signature'), key);
  const standard = isValidStandardWebhook(raw, { 'webhook-id': header('webhook-id'), 'webhook-timestamp': header('webhook-timestamp'), 'webhook-signature': header('webhook-signature') }, key);
  if (!stripe || !standard) signaturesFailed++;
}

function stats(expected: number | null): ReceiverStats {
  const sorted = Float64Array.from(latencies).sort();
  const total = Math.max(expected ?? sorted.length, sorted.length);
  const at = (p: number) => {
    const rank = Math.max(0, Math.ceil((p / 100) * total) - 1);
    return rank < sorted.length ? sorted[rank] : null;
  };
  let duplicates = 0;
  for (const count of okCounts.values()) duplicates += count - 1;
  return {
    received,
    distinct: okCounts.size,
    duplicates,
    firstAt,
    lastAt,
    p50: total === 0 ? null : at(50),
    p99: total === 0 ? null : at(99),
    max: total === 0 ? null : at(100),
    signaturesChecked,
    signaturesFailed,
    meanBodyBytes: received === 0 ? 0 : bodyBytes / received,
  };
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => onDelivery(request, response, Buffer.concat(chunks)));
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 70_000;
server.requestTimeout = 0;

serve({
  configure: (arg: { mode?: Partial<ReceiverMode>; secret?: string | null; sampleEvery?: number }) => {
    if (arg.mode) mode = { ...mode, ...arg.mode };
    if (arg.secret !== undefined) secret = arg.secret;
    if (arg.sampleEvery) sampleEvery = arg.sampleEvery;
    return null;
  },
  reset: () => reset(),
  stats: (expected: number | null) => stats(expected),
});

server.listen(0, '127.0.0.1', () => process.send!({ ready: (server.address() as AddressInfo).port }));
