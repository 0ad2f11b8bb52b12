import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/waiting';

describe('smoke', () => {
  let sut: TestApp;
  const got: Array<{ headers: Record<string, unknown>; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.statusCode = 200;
      res.end('ok');
    });
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    sut = await startTestApp('sqlite', { env: { TARGET_RETRY_SCHEDULE: '50ms,50ms,50ms' } });
  });
  afterAll(async () => {
    await sut.close();
    server.close();
  });
  it('works', async () => {
    const { apiKey } = await sut.createAccount();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
    const t = await sut.http().post('/v3/automations/webhook-targets').set('api-key', apiKey).send({ name: 'r', url, generateSigningKey: true, headers: { 'X-A': 'b' } });
    console.log(t.status, t.body);
    const w = await sut.http().post('/v3/automations/workflows').set('api-key', apiKey).send({ name: 'w', trigger: { type: 'incoming_webhook' }, steps: [{ type: 'send_webhook', targetId: t.body.id, body: { x: '{{ trigger.body.x }}' } }] });
    console.log(w.status, w.body);
    const a = await sut.http().post(`/v3/automations/workflows/${w.body.id}/activate`).set('api-key', apiKey);
    console.log(a.status, a.body);
    const path = new URL(a.body.triggerUrl).pathname;
    const h = await sut.http().post(path).send({ x: [1, 2] });
    console.log(h.status, h.body, h.headers);
    await waitFor('delivery', () => got.length > 0, 10000);
    console.log(got);
    const r = await sut.http().get(`/v3/automations/workflows/${w.body.id}/runs`).set('api-key', apiKey);
    console.log(JSON.stringify(r.body));
    for (const [ct, body] of [['text/plain', 'x'], ['application/json', '{'], ['application/json', 'x'.repeat(262145)]]) {
      const e = await sut.http().post(path).set('content-type', ct).send(body);
      console.log(ct, body.length, e.status, e.body, e.headers['content-type']);
    }
    const e = await sut.http().post('/hooks/nope').set('content-type', 'application/json').send('{}');
    console.log(e.status, e.body);
    const e2 = await sut.http().post(path);
    console.log(e2.status, e2.body);
    const docs = await sut.http().get('/docs/json');
    console.log(Object.keys(docs.body.paths));
  });
});
