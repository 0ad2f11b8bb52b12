import type { TransportErrorKind } from '../../../kernel/src';

export interface TransportFailure {
  kind: TransportErrorKind;
  /** For logs only: the error code and message, never the URL's path or query. */
  detail: string;
}

const TIMEOUT_CODES = new Set([
  'ERR_OUTBOUND_TIMEOUT', // the adapter's own total time limit
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_ABORTED', // the adapter aborts only when its time limit passes
  'ETIMEDOUT',
  'ABORT_ERR',
]);

const REFUSED_CODES = new Set([
  'ECONNREFUSED',
  // Nothing answered at all: closer to "could not connect" than to a reset.
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
]);

const DNS_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'EAI_NONAME',
  'EAI_ADDRFAMILY',
  'EAI_FAMILY',
  'EAI_SERVICE',
  'EAI_SOCKTYPE',
  'EAI_BADFLAGS',
  'EAI_MEMORY',
  'EAI_SYSTEM',
  'ENODATA',
  'ESERVFAIL',
  'EFORMERR',
  'ENONAME',
  'EREFUSED',
  'EBADNAME',
  'EBADRESP',
  'ERR_INVALID_IP_ADDRESS', // a lookup that returned garbage
]);

const TLS_CODES = new Set([
  'EPROTO',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'PATH_LENGTH_EXCEEDED',
  'HOSTNAME_MISMATCH',
]);
const TLS_PREFIXES = ['ERR_TLS_', 'ERR_SSL_', 'ERR_OSSL_', 'CERT_'];

const RESET_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/** Maps whatever undici / node:net / node:tls / node:dns threw to the contract's attempt error kinds. */
export function classifyTransportError(err: unknown): TransportFailure {
  const detail = describe(err);
  for (const candidate of errorChain(err)) {
    const kind = kindOf(candidate);
    if (kind) return { kind, detail };
  }
  return { kind: 'connection_reset', detail };
}

function kindOf(err: ErrorLike): TransportErrorKind | null {
  const code = typeof err.code === 'string' ? err.code : undefined;
  if (code === 'ERR_BLOCKED_ADDRESS') return 'blocked_address';
  if (code === 'ERR_INVALID_URL') return 'invalid_url';
  if (code && TIMEOUT_CODES.has(code)) return 'timeout';
  if (err.name === 'TimeoutError') return 'timeout'; // DOMException from AbortSignal.timeout()
  if (err.syscall === 'getaddrinfo' || err.syscall?.startsWith('query')) return 'dns';
  if (code && DNS_CODES.has(code)) return 'dns';
  if (code && (TLS_CODES.has(code) || TLS_PREFIXES.some((p) => code.startsWith(p)))) return 'tls';
  if (code && REFUSED_CODES.has(code)) return 'connection_refused';
  if (code && (RESET_CODES.has(code) || code.startsWith('HPE_'))) return 'connection_reset';
  return null;
}

interface ErrorLike {
  code?: unknown;
  name?: string;
  syscall?: string;
  message?: string;
  cause?: unknown;
  errors?: unknown;
}

/** The error, then its causes and (for AggregateError from happy eyeballs) its parts, breadth first. */
function errorChain(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  const queue: unknown[] = [err];
  const seen = new Set<unknown>();
  while (queue.length > 0 && out.length < 16) {
    const next = queue.shift();
    if (next === null || typeof next !== 'object' || seen.has(next)) continue;
    seen.add(next);
    const e = next as ErrorLike;
    out.push(e);
    if (e.cause !== undefined) queue.push(e.cause);
    if (Array.isArray(e.errors)) queue.push(...e.errors);
  }
  return out;
}

function describe(err: unknown): string {
  if (err === null || typeof err !== 'object') return String(err);
  const e = err as ErrorLike;
  const code = typeof e.code === 'string' ? e.code : undefined;
  const message = e.message || e.name || 'unknown error';
  const inner = Array.isArray(e.errors)
    ? ` [${(e.errors as ErrorLike[]).map((x) => x?.message ?? String(x)).join('; ')}]`
    : '';
  return (code && !message.includes(code) ? `${code}: ${message}` : message) + inner;
}
