import { errors as undiciErrors } from 'undici';
import { BlockedAddressError } from './blocked-address-error';
import { classifyTransportError } from './classify-transport-error';
import { OutboundTimeoutError } from './outbound-timeout-error';

const sys = (code: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`${code} something`), { code, ...extra });

describe('classifyTransportError', () => {
  it.each<[string, unknown, string]>([
    ['own time limit', new OutboundTimeoutError(300), 'timeout'],
    ['undici connect timeout', new undiciErrors.ConnectTimeoutError(), 'timeout'],
    ['undici headers timeout', new undiciErrors.HeadersTimeoutError(), 'timeout'],
    ['undici body timeout', new undiciErrors.BodyTimeoutError(), 'timeout'],
    ['undici aborted', new undiciErrors.RequestAbortedError(), 'timeout'],
    ['ETIMEDOUT', sys('ETIMEDOUT'), 'timeout'],
    ['AbortSignal.timeout reason', new DOMException('timed out', 'TimeoutError'), 'timeout'],
    ['ECONNREFUSED', sys('ECONNREFUSED', { syscall: 'connect' }), 'connection_refused'],
    ['EHOSTUNREACH', sys('EHOSTUNREACH', { syscall: 'connect' }), 'connection_refused'],
    ['ENETUNREACH', sys('ENETUNREACH'), 'connection_refused'],
    ['ENOTFOUND', sys('ENOTFOUND', { syscall: 'getaddrinfo' }), 'dns'],
    ['EAI_AGAIN', sys('EAI_AGAIN', { syscall: 'getaddrinfo' }), 'dns'],
    ['EAI_FAIL', sys('EAI_FAIL'), 'dns'],
    ['ENODATA', sys('ENODATA'), 'dns'],
    ['getaddrinfo with an odd code', sys('EWHATEVER', { syscall: 'getaddrinfo' }), 'dns'],
    ['self-signed', sys('DEPTH_ZERO_SELF_SIGNED_CERT'), 'tls'],
    ['self-signed in chain', sys('SELF_SIGNED_CERT_IN_CHAIN'), 'tls'],
    ['leaf not verifiable', sys('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'tls'],
    ['expired', sys('CERT_HAS_EXPIRED'), 'tls'],
    ['altname', sys('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls'],
    ['wrong version', sys('ERR_SSL_WRONG_VERSION_NUMBER'), 'tls'],
    ['EPROTO', sys('EPROTO'), 'tls'],
    ['blocked', new BlockedAddressError('localhost', '127.0.0.1'), 'blocked_address'],
    ['invalid URL', sys('ERR_INVALID_URL'), 'invalid_url'],
    ['ECONNRESET', sys('ECONNRESET'), 'connection_reset'],
    ['EPIPE', sys('EPIPE'), 'connection_reset'],
    ['undici socket closed', new undiciErrors.SocketError('other side closed'), 'connection_reset'],
    ['undici client closed', new undiciErrors.ClientClosedError(), 'connection_reset'],
    ['HTTP parser error', sys('HPE_INVALID_CONSTANT'), 'connection_reset'],
    ['unknown error', new Error('weird'), 'connection_reset'],
    ['not an error at all', 'a string', 'connection_reset'],
    ['null', null, 'connection_reset'],
  ])('%s -> %s', (_name, err, kind) => {
    const result = classifyTransportError(err);
    expect(result.kind).toBe(kind);
    expect(result.detail).toEqual(expect.any(String));
  });

  it('looks through causes', () => {
    const wrapped = new TypeError('fetch failed', { cause: sys('ECONNREFUSED') });
    expect(classifyTransportError(wrapped).kind).toBe('connection_refused');
  });

  it('looks into an AggregateError from happy eyeballs', () => {
    const aggregate = new AggregateError([sys('ECONNREFUSED'), sys('ECONNREFUSED')], 'all attempts failed');
    expect(classifyTransportError(aggregate).kind).toBe('connection_refused');
  });

  it('keeps the code in the detail', () => {
    expect(classifyTransportError(sys('ECONNRESET')).detail).toContain('ECONNRESET');
  });
});
