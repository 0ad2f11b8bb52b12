import { Agent } from 'undici';
import {
  OutboundClosedError,
  OutboundHttp,
  parseRetryAfter,
  RESPONSE_BODY_LIMIT_BYTES,
  type OutboundRequest,
  type OutboundResult,
  type TransportErrorKind,
} from '../../../kernel/src';
import { buildAddressGuardedConnector } from './address-guarded-connector';
import { CappedPost } from './capped-post';
import { classifyTransportError } from './classify-transport-error';
import { OutboundTimeoutError } from './outbound-timeout-error';

export interface UndiciOutboundHttpOptions {
  /** Total time limit of one call (connect + headers + body), unless the request sets its own. */
  timeoutMs: number;
  /** ALLOW_PRIVATE_TARGETS: when true the address guard is skipped entirely. */
  allowPrivate: boolean;
  /** Sent as User-Agent unless the request carries its own. */
  userAgent: string;
}

/**
 * OutboundHttp over one undici Agent (a keep-alive pool per origin). Never follows redirects: no
 * redirect interceptor is composed, so a 3xx comes back as a status. Never throws for network
 * outcomes: every failure is classified into the contract's attempt error kinds.
 *
 * The pool sets no limit of connections per origin: a call never waits inside it, so its time
 * limit covers connect, headers and body only. The callers bound their own concurrency (the
 * delivery lanes per origin, the work queue's handlers for target calls); a pool limit below their
 * sum queued calls behind each other while their timers ran, and a healthy receiver's calls timed
 * out, counted as failures and were made again.
 */
export class UndiciOutboundHttp extends OutboundHttp {
  private readonly agent: Agent;
  private readonly targets = new Map<string, Target | string>();
  private closing = false;

  constructor(private readonly options: UndiciOutboundHttpOptions) {
    super();
    assertPositiveInteger('timeoutMs', options.timeoutMs);
    this.agent = new Agent({
      connections: null,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: options.allowPrivate
        ? { timeout: options.timeoutMs }
        : buildAddressGuardedConnector({ connectTimeoutMs: options.timeoutMs }),
    });
  }

  override async post(request: OutboundRequest): Promise<OutboundResult> {
    if (this.closing) throw new OutboundClosedError();
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);

    const target = this.targetOf(request.url);
    if (typeof target === 'string') {
      return failure('invalid_url', target, elapsed());
    }

    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs;
    const call = new CappedPost(RESPONSE_BODY_LIMIT_BYTES);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      call.abort(new OutboundTimeoutError(timeoutMs));
    }, timeoutMs);
    try {
      const { status, retryAfter, body } = await call.send(this.agent, {
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers: this.headersFor(request.headers),
        body: request.body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      }).answer;
      const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(retryAfter, Date.now()) : undefined;
      return { status, durationMs: elapsed(), body, error: null, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    } catch (err) {
      if (this.closing && isClosedPoolError(err)) throw new OutboundClosedError();
      // Once our timer fired, whatever undici reports (abort, socket closed...) is a timeout.
      const { kind, detail } = timedOut ? { kind: 'timeout' as const, detail: `no complete answer within ${timeoutMs} ms` } : classifyTransportError(err);
      // Headers without a complete body are not an answer (CONTRACT §3): status stays null.
      const suffix = call.status !== null ? ` (after HTTP ${call.status} headers)` : '';
      return failure(kind, detail + suffix, elapsed());
    } finally {
      clearTimeout(timer);
    }
  }

  /** As undici writes them: host and connection first, content-length last (one object: it is built for every delivery). */
  override sentHeaders(request: OutboundRequest): Record<string, string> {
    const target = this.targetOf(request.url);
    const sent: Record<string, string> = typeof target === 'string' ? {} : { host: target.host };
    sent.connection = 'keep-alive';
    let hasUserAgent = false;
    for (const name in request.headers) {
      sent[name] = request.headers[name];
      hasUserAgent ||= name.toLowerCase() === 'user-agent';
    }
    if (!hasUserAgent) sent['user-agent'] = this.options.userAgent;
    sent['content-length'] = String(typeof request.body === 'string' ? Buffer.byteLength(request.body) : request.body.length);
    return sent;
  }

  /** Closes the pools: waits for calls in flight (each bounded by its time limit), then closes sockets. */
  async close(): Promise<void> {
    this.closing = true;
    if (!this.agent.closed) await this.agent.close();
  }

  /** Parsed once per URL: a webhook's deliveries all go to the same one. */
  private targetOf(url: string): Target | string {
    let target = this.targets.get(url);
    if (target === undefined) {
      if (this.targets.size >= MAX_CACHED_TARGETS) this.targets.clear();
      target = parseTargetUrl(url);
      this.targets.set(url, target);
    }
    return target;
  }

  private headersFor(headers: Record<string, string>): Record<string, string> {
    const hasUserAgent = Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent');
    return hasUserAgent ? { ...headers } : { ...headers, 'user-agent': this.options.userAgent };
  }
}

interface Target {
  origin: string;
  /** The Host header: hostname, and the port unless it is the scheme's default. */
  host: string;
  path: string;
}

const MAX_CACHED_TARGETS = 1024;

/** The URL's origin and path, or why it cannot be called (the `invalid_url` kind). Addresses are the connector's job. */
function parseTargetUrl(raw: string): Target | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `unsupported scheme ${url.protocol}`;
  }
  if (url.hostname === '') return 'url has no host';
  if (url.username !== '' || url.password !== '') return 'url must not contain credentials';
  return { origin: url.origin, host: url.host, path: url.pathname + url.search };
}

function failure(kind: TransportErrorKind, detail: string, durationMs: number): OutboundResult {
  return { status: null, durationMs, body: '', error: kind, errorDetail: detail };
}

function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
}

/** undici's refusal of a request made on a pool that was closed or destroyed: the request never left. */
function isClosedPoolError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'UND_ERR_CLOSED' || code === 'UND_ERR_DESTROYED';
}
