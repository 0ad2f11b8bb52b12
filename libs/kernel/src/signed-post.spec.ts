import { isValid, isValidStandardWebhook, sign, signServiceSignature } from '../../signing/src';
import { sendSignedPost, SignedPostFormat, signedPostHeaders } from './signed-post';
import { ScriptedOutboundHttp } from './testing/kernel-fakes';

describe(sendSignedPost.name, () => {
  const at = new Date('2025-11-22T02:00:00.400Z');
  const t = 1763776800;
  const body = '{"a":"é"}';
  const delivery: SignedPostFormat = { kind: 'event_delivery', secrets: ['whsec_bmV3', 'whsec_b2xk'], eventId: 'evt_1', eventType: 'email.sent', test: false };
  const targetCall = (signingKey: string | null): SignedPostFormat => ({ kind: 'target_call', signingKey, customHeaders: { Authorization: 'Bearer abc', 'X-Tenant': 't1' } });

  it('sends an event delivery with the contract headers, lowercase and in their order', async () => {
    const http = new ScriptedOutboundHttp([{ status: 204 }]);
    await sendSignedPost(http, { url: 'https://r.example.com/h', body, timeoutMs: 1234, at, format: delivery });
    const signed = sign({ secrets: ['whsec_bmV3', 'whsec_b2xk'], body, timestamp: t, id: 'evt_1' });
    expect(http.requests).toHaveLength(1);
    const [request] = http.requests;
    expect({ url: request.url, body: request.body, timeoutMs: request.timeoutMs }).toEqual({ url: 'https://r.example.com/h', body, timeoutMs: 1234 });
    expect(Object.entries(request.headers)).toEqual([
      ['content-type', 'application/json'],
      ['x-service-signature', signed.signature],
      ['x-service-event-id', 'evt_1'],
      ['x-service-event-type', 'email.sent'],
      ['webhook-id', 'evt_1'],
      ['webhook-timestamp', String(t)],
      ['webhook-signature', signed.webhookSignature],
    ]);
    expect(isValid(body, request.headers['x-service-signature'], 'whsec_b2xk', { now: t })).toBe(true);
    expect(isValidStandardWebhook(body, request.headers, 'whsec_bmV3', { now: t })).toBe(true);
  });

  it('marks a test delivery last', () => {
    const headers = signedPostHeaders({ ...delivery, test: true } as SignedPostFormat, body, t);
    expect(Object.keys(headers).at(-1)).toBe('x-service-test');
    expect(headers['x-service-test']).toBe('true');
  });

  it('sends a target call with its custom headers first, then the content type and its signature', async () => {
    const http = new ScriptedOutboundHttp([{ status: 200 }]);
    await sendSignedPost(http, { url: 'https://crm.example.com/hook', body, timeoutMs: 5, at, format: targetCall('tsk_the-target-signing-key') });
    expect(Object.entries(http.requests[0].headers)).toEqual([
      ['Authorization', 'Bearer abc'],
      ['X-Tenant', 't1'],
      ['Content-Type', 'application/json'],
      ['X-Service-Automation-Signature', signServiceSignature(['tsk_the-target-signing-key'], body, t)],
    ]);
  });

  it('sends a target call without a key unsigned', () => {
    expect(signedPostHeaders(targetCall(null), body, t)).toEqual({ Authorization: 'Bearer abc', 'X-Tenant': 't1', 'Content-Type': 'application/json' });
  });

  it.each([
    [{ status: 200 }, true, { result: 'succeeded', reason: '2xx' }],
    [{ status: 302 }, false, { result: 'failed', reason: '3xx' }],
    [{ status: 503, retryAfterMs: 2000 }, false, { result: 'failed', reason: '5xx' }],
    [{ status: null, error: 'timeout' as const }, false, { result: 'failed', reason: 'timeout' }],
  ])('classifies %j', async (answer, success, outcome) => {
    const http = new ScriptedOutboundHttp([answer]);
    const result = await sendSignedPost(http, { url: 'https://r.example.com/h', body, timeoutMs: 5, at, format: delivery });
    expect(result).toMatchObject({ ...answer, success, outcome });
  });

  it('records every header sent, those the transport adds included', async () => {
    const http = new ScriptedOutboundHttp();
    const result = await sendSignedPost(http, { url: 'https://r.example.com:8443/h', body, timeoutMs: 5, at, format: delivery });
    expect(result.requestHeaders).toEqual({ host: 'r.example.com:8443', ...http.requests[0].headers, 'user-agent': 'WebhookServer/test' });
  });
});
