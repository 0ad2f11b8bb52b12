import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../kernel/src';
import { verify } from '../../signing/src';

import { WebhookTarget } from './webhook-target';
import { WebhookTargetCaller } from './webhook-target-caller';
import { WebhookTargetsSettings } from './webhook-targets.settings';
import { ManualClock, ScriptedOutboundHttp } from '../../kernel/src/testing/kernel-fakes';

describe(WebhookTargetCaller.name, () => {
  const secrets = new SecretBox(randomBytes(32));
  const clock = new ManualClock(new Date('2025-11-22T02:00:00.000Z'));
  let http: ScriptedOutboundHttp;
  let sut: WebhookTargetCaller;

  const target = (key: string | null): WebhookTarget => ({
    id: 'tgt_01jd2x7q9m3k8p4r6t1v5w0y2z',
    accountId: 1,
    name: 'CRM',
    url: 'https://crm.example.com/hook',
    headers: { Authorization: 'Bearer abc', 'X-Tenant': 't1' },
    signingKeySealed: key === null ? null : secrets.seal(key),
    createdAt: new Date(),
    updatedAt: new Date(),
  });

  beforeEach(() => {
    http = new ScriptedOutboundHttp([{ status: 204 }]);
    sut = new WebhookTargetCaller(http, secrets, clock, new WebhookTargetsSettings(false, 1234));
  });

  it('posts the body with the custom headers, JSON content type and the configured timeout', async () => {
    const result = await sut.call(target(null), '{"a":1}');
    expect(result.status).toBe(204);
    expect(http.requests).toEqual([
      {
        url: 'https://crm.example.com/hook',
        headers: { Authorization: 'Bearer abc', 'X-Tenant': 't1', 'Content-Type': 'application/json' },
        body: '{"a":1}',
        timeoutMs: 1234,
      },
    ]);
  });

  it('signs with X-Service-Automation-Signature when the target has a key', async () => {
    const key = 'tsk_the-target-signing-key';
    await sut.call(target(key), '{"a":"é"}');
    const header = http.requests[0].headers['X-Service-Automation-Signature'];
    expect(header).toMatch(/^t=1763776800,v1=[0-9a-f]{64}$/);
    expect(() => verify('{"a":"é"}', header, key, { now: 1763776800 })).not.toThrow();
    expect(() => verify('{"a":"e"}', header, key, { now: 1763776800 })).toThrow();
  });
});
