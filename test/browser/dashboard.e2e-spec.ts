import type { Locator, Page } from 'playwright-core';
import { eventually } from '../support/eventually';
import { Receiver, startReceiver } from '../support/receiver';
import { PROFILES, startTestApp, TestApp } from '../support/test-app';
import { browserAvailable, BrowserSession, ensureWebBuild, freePort, launchBrowser, screenshot } from './browser-support';

/**
 * The dashboard at /app, in Debian's chromium, against the real API app with its in-process
 * dispatcher (SQLite profile only: the page speaks HTTP to the API, and the storage profiles are
 * covered by the API's own e2e suites). Events and sends are produced through /internal with the
 * INTERNAL_TOKEN, as the platform would; everything the page does goes through the public /v3 API.
 */
const ENV = {
  DELIVERY_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms',
  DELIVERY_TIMEOUT_MS: '2000',
  WEBHOOK_DISABLE_AFTER: '3',
  TARGET_RETRY_SCHEDULE: '100ms,100ms,100ms',
};
const WAIT_MS = 15_000;
const STEP_TIMEOUT_MS = 60_000;

const delivered = (idSending: number) => ({ email: 'jane@example.com', idSending, sendingType: 1, diagCode: '250 2.0.0 OK', deliveredAt: '2025-11-22T02:00:00.000Z' });

const runsHere = PROFILES.includes('sqlite');
if (!runsHere) console.warn('the browser suite runs on the sqlite profile only; TEST_PROFILES leaves it out');
const enabled = runsHere && browserAvailable();

(enabled ? describe : describe.skip)('dashboard in a real browser (sqlite)', () => {
  let sut: TestApp;
  let browser: BrowserSession;
  let page: Page;
  let origin: string;
  let account: { id: number; name: string; apiKey: string };
  let hooks: Receiver;
  let crm: Receiver;
  let webhook: { url: string; id: string; secret: string };
  const events: string[] = [];

  beforeAll(async () => {
    ensureWebBuild();
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    sut = await startTestApp('sqlite', { env: { ...ENV, PORT: String(port), PUBLIC_BASE_URL: origin } });
    await sut.app.listen({ port, host: '127.0.0.1' });
    account = await sut.createAccount('Acme');
    hooks = await startReceiver({ status: 200, body: 'ok' });
    crm = await startReceiver({ status: 200, body: 'accepted' });
    browser = await launchBrowser();
    page = browser.page;
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  }, STEP_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await hooks?.close();
    await crm?.close();
    await sut?.close();
  });

  const internal = (path: string, body: object) => sut.http().post(`/internal${path}`).set('authorization', `Bearer ${sut.tokens.internal}`).send(body);
  const publish = async (idSending: number) => {
    const response = await internal('/events', { accountId: account.id, type: 'email.delivered', data: delivered(idSending) }).expect(202);
    events.push(response.body.id);
    return response.body.id as string;
  };
  const apiGet = async (path: string) => (await sut.http().get(`/v3${path}`).set('api-key', account.apiKey).expect(200)).body;
  const eventIdsReceived = (receiver: Receiver) => receiver.requests.map((r) => JSON.parse(r.body).id as string);
  const webhookCard = () => page.getByRole('listitem', { name: `Webhook ${webhook.url}` });
  const delivery = (eventId: string) => page.getByRole('listitem').filter({ hasText: eventId });
  /** Clicks `refresh` until `target` shows `text` (the page shows what the API says when asked). */
  const refreshUntil = async (refresh: Locator, target: Locator, text: string | RegExp) =>
    eventually(async () => {
      await refresh.click();
      await target.filter({ hasText: text }).first().waitFor({ timeout: 500 });
    }, WAIT_MS);

  it(
    'signs in with the keyboard, shows a refused key in words, and keeps the key in session storage only',
    async () => {
      await page.goto(`${origin}/app`);
      await page.getByRole('heading', { name: 'Webhook server' }).waitFor();
      await screenshot(page, '01-sign-in', false);

      await page.getByLabel('API key').focus();
      await page.keyboard.type('sk_not_a_key');
      await page.keyboard.press('Enter');
      await page.getByRole('alert').filter({ hasText: 'unauthorized, HTTP 401' }).waitFor();

      await page.getByLabel('API key').fill(account.apiKey);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();

      expect(await page.evaluate('sessionStorage.length')).toBe(1);
      expect(await page.evaluate('Object.values(sessionStorage)')).toEqual([account.apiKey]);
      expect(await page.evaluate('localStorage.length')).toBe(0);
      expect(await browser.context.cookies()).toEqual([]);
      expect(page.url()).toBe(`${origin}/app`);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'creates a webhook, shows an API error in words, and shows the secret once with a copy button',
    async () => {
      await page.getByRole('button', { name: 'New webhook' }).click();
      await page.getByRole('group', { name: 'email' }).waitFor();
      expect(await page.getByRole('group', { name: 'Events' }).getByRole('checkbox', { name: /^[a-z_]+(\.[a-z_]+)+$/ }).count()).toBe(30);

      await page.getByLabel('Endpoint URL').fill('ftp://example.com/hook');
      await page.getByRole('checkbox', { name: 'email.delivered', exact: true }).check();
      await page.getByRole('button', { name: 'Create webhook' }).click();
      await page.getByRole('alert').filter({ hasText: 'invalid_parameter, HTTP 400' }).waitFor();

      const url = `${hooks.url}/hooks/acme`;
      await page.getByLabel('Endpoint URL').fill(url);
      await page.getByLabel('Description (optional)').fill('Delivery reports for the CRM');
      await screenshot(page, '02-webhook-form');
      await page.getByRole('button', { name: 'Create webhook' }).click();

      await page.getByText('you will not see this again').waitFor();
      const secret = await page.getByRole('textbox', { name: 'Signing secret', exact: true }).inputValue();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
      await screenshot(page, '03-webhook-created-secret');

      const [listed] = (await apiGet('/Webhook')).webhooks;
      webhook = { url, id: listed.id, secret };
      await page.getByRole('button', { name: 'I have saved it' }).click();
      await webhookCard().waitFor();
      expect(await page.getByRole('textbox', { name: 'Signing secret', exact: true }).count()).toBe(0);
      await page.reload();
      await webhookCard().waitFor();
      expect(await page.content()).not.toContain(secret);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'shows the webhook disabled, with when and why, after its receiver keeps failing; one click enables it and new events flow again',
    async () => {
      hooks.respond({ status: 500, body: 'receiver down' });
      const failing = await publish(1);
      await eventually(async () => expect((await apiGet(`/Webhook/${webhook.id}`)).state).toBe('disabled'), WAIT_MS);

      await refreshUntil(page.getByRole('button', { name: 'Refresh', exact: true }), webhookCard(), 'after 3 consecutive failed delivery attempts');
      await expect(webhookCard().getByText('disabled', { exact: true }).isVisible()).resolves.toBe(true);
      await expect(webhookCard().getByText('Consecutive failures').isVisible()).resolves.toBe(true);
      await screenshot(page, '04-webhooks-disabled');
      expect(eventIdsReceived(hooks)).toEqual([failing, failing, failing]);

      hooks.respond({ status: 200, body: 'ok' });
      await page.getByRole('button', { name: `Enable webhook ${webhook.url}` }).click();
      await webhookCard().getByText('enabled', { exact: true }).waitFor();
      await page.getByRole('status').filter({ hasText: 'is now enabled' }).waitFor();

      const fresh = await publish(2);
      await eventually(() => expect(eventIdsReceived(hooks)).toContain(fresh), WAIT_MS);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'opens the delivery log: attempts with status and response body, status filter, recover with its count, retry, test event, paging',
    async () => {
      const [failing, fresh] = events;
      await webhookCard().getByRole('link', { name: 'Deliveries and settings' }).click();
      await page.getByRole('heading', { level: 1, name: webhook.url }).waitFor();
      const log = page.getByRole('list', { name: 'Deliveries, newest first' });
      await refreshUntil(page.getByRole('button', { name: 'Refresh', exact: true }), delivery(fresh), 'succeeded');

      // Newest first: the fresh event above the one skipped while the webhook was disabled.
      const order = await log.locator(':scope > li').allInnerTexts();
      expect(order).toHaveLength(2);
      expect(order[0]).toContain(fresh);
      expect(order[1]).toContain(failing);
      expect(order[1]).toContain('skipped');

      await delivery(failing).getByText('Show 3 attempts').click();
      await delivery(failing).getByText('HTTP 500').first().waitFor();
      await delivery(failing).getByText('receiver down').first().waitFor();
      await screenshot(page, '05-delivery-log');

      await page.getByLabel('Status', { exact: true }).selectOption('succeeded');
      await eventually(async () => expect(await log.locator(':scope > li').count()).toBe(1), WAIT_MS);
      await page.getByLabel('Status', { exact: true }).selectOption('');
      await eventually(async () => expect(await log.locator(':scope > li').count()).toBe(2), WAIT_MS);

      // Recover since a chosen time: the skipped delivery comes back, and the page says how many.
      await page.getByLabel('Recover failed and skipped deliveries since').fill('2020-01-01T00:00:00');
      await page.getByRole('button', { name: 'Recover' }).click();
      await page.getByRole('status').filter({ hasText: '1 delivery requeued' }).waitFor();
      await eventually(() => expect(eventIdsReceived(hooks).filter((id) => id === failing)).toHaveLength(4), WAIT_MS);
      await refreshUntil(page.getByRole('button', { name: 'Refresh', exact: true }), delivery(failing), 'succeeded');

      // Retry one delivery: one more attempt now, same event id.
      await page.getByRole('button', { name: `Retry delivery of email.delivered ${fresh}` }).click();
      await page.getByRole('status').filter({ hasText: `Retry of email.delivered (${fresh}) queued` }).waitFor();
      await eventually(() => expect(eventIdsReceived(hooks).filter((id) => id === fresh)).toHaveLength(2), WAIT_MS);
      await refreshUntil(page.getByRole('button', { name: 'Refresh', exact: true }), delivery(fresh), 'Show 2 attempts');

      // A test event of a chosen type, to this webhook only.
      await page.getByLabel('Test event type').selectOption('email.delivered');
      await page.getByRole('button', { name: 'Send test event' }).click();
      const said = await page.getByRole('status').filter({ hasText: /^Test event evt_/ }).innerText();
      const testEventId = /evt_[A-Za-z0-9]+/.exec(said)![0];
      await eventually(() => expect(eventIdsReceived(hooks)).toContain(testEventId), WAIT_MS);

      // Paging through nextCursor: 20 a page.
      await internal('/events/batch', { events: Array.from({ length: 20 }, (_, i) => ({ accountId: account.id, type: 'email.delivered', data: delivered(100 + i) })) }).expect(202);
      await eventually(async () => expect((await apiGet(`/Webhook/${webhook.id}/deliveries?limit=100`)).deliveries).toHaveLength(23), WAIT_MS);
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      await page.getByRole('button', { name: 'Load older deliveries' }).waitFor();
      expect(await log.locator(':scope > li').count()).toBe(20);
      await page.getByRole('button', { name: 'Load older deliveries' }).click();
      await eventually(async () => expect(await log.locator(':scope > li').count()).toBe(23), WAIT_MS);
      expect(await page.getByRole('button', { name: 'Load older deliveries' }).count()).toBe(0);
      await delivery(failing).waitFor();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'edits the URL and events, rotates the secret (shown once), disables, and deletes after a confirmation',
    async () => {
      await page.getByRole('button', { name: 'Edit URL and events' }).click();
      const form = page.getByRole('form', { name: 'Edit webhook' });
      await form.getByRole('checkbox', { name: 'email.bounced', exact: true }).check();
      await form.getByRole('button', { name: 'Save changes' }).click();
      await form.waitFor({ state: 'detached' });
      await eventually(async () => expect((await apiGet(`/Webhook/${webhook.id}`)).events).toEqual(['email.delivered', 'email.bounced']), WAIT_MS);
      await page.getByText('Events (2)').waitFor();

      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
      const rotated = await page.getByRole('textbox', { name: 'New signing secret', exact: true }).inputValue();
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(webhook.secret);
      await page.getByRole('button', { name: 'I have saved it' }).click();

      await page.getByRole('button', { name: 'Disable', exact: true }).click();
      await page.getByRole('button', { name: 'Enable', exact: true }).waitFor();
      expect((await apiGet(`/Webhook/${webhook.id}`)).state).toBe('disabled');

      // Cancel first: nothing happens. Then delete for real.
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('dialog', { name: 'Delete this webhook?' }).getByRole('button', { name: 'Cancel' }).click();
      expect((await apiGet('/Webhook')).webhooks).toHaveLength(1);
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('dialog', { name: 'Delete this webhook?' }).getByRole('button', { name: 'Delete webhook' }).click();
      await page.getByText('No webhooks yet.').waitFor();
      expect((await apiGet('/Webhook')).webhooks).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'creates a target (signing key shown once) and a workflow with send_webhook and delay steps, activates it, and shows the run a trigger call starts',
    async () => {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Automations' }).click();
      await page.getByRole('heading', { level: 1, name: 'Automations' }).waitFor();

      await page.getByRole('button', { name: 'New target' }).click();
      await page.getByLabel('Name', { exact: true }).fill('CRM');
      await page.getByLabel('URL', { exact: true }).fill(`${crm.url}/crm`);
      await page.getByRole('button', { name: 'Add header' }).click();
      await page.getByLabel('Header 1 name').fill('X-Team');
      await page.getByLabel('Header 1 value').fill('growth');
      await page.getByRole('radio', { name: 'Generate a signing key (shown once)' }).check();
      await page.getByRole('button', { name: 'Create target' }).click();
      await page.getByText('you will not see this again').waitFor();
      const signingKey = await page.getByRole('textbox', { name: 'Target signing key', exact: true }).inputValue();
      expect(signingKey.length).toBeGreaterThanOrEqual(16);
      await screenshot(page, '06-target-created-key');
      await page.getByRole('button', { name: 'I have saved it' }).click();
      await page.getByRole('listitem', { name: 'Target CRM' }).getByText('X-Team').waitFor();

      await page.getByRole('button', { name: 'New workflow' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Paid orders to CRM');
      await expect(page.getByLabel('Target', { exact: true }).inputValue()).resolves.toMatch(/^tgt_/);
      await page.getByLabel('Body template (JSON)').fill('{"order": "{{ trigger.body.order.id }}", "total": "{{ trigger.body.order.total }}", "run": "{{ run.id }}"}');
      await page.getByRole('button', { name: 'Add a delay step' }).click();
      await page.getByLabel('Wait (seconds)').fill('1');
      await page.getByRole('button', { name: 'Create workflow' }).click();
      await page.getByRole('heading', { level: 1, name: 'Paid orders to CRM' }).waitFor();
      await page.getByText('send to CRM → wait 1 s').waitFor();

      await page.getByRole('button', { name: 'Activate', exact: true }).click();
      await page.getByText('you will not see this again').waitFor();
      const triggerUrl = await page.getByRole('textbox', { name: 'Trigger URL', exact: true }).inputValue();
      expect(triggerUrl.startsWith(`${origin}/hooks/`)).toBe(true);
      await screenshot(page, '07-workflow-activated');
      await page.getByRole('button', { name: 'I have saved it' }).click();
      expect(await page.content()).not.toContain(triggerUrl);

      const call = await fetch(triggerUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ order: { id: 'o-42', total: 12.5 } }) });
      expect(call.status).toBe(202);
      const { runId } = (await call.json()) as { runId: string };
      await eventually(() => expect(crm.requests).toHaveLength(1), WAIT_MS);
      const [received] = crm.requests;
      expect(JSON.parse(received.body)).toEqual({ order: 'o-42', total: 12.5, run: runId });
      expect(received.headers['x-team']).toBe('growth');
      expect(received.headers['x-service-automation-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

      const run = page.getByRole('listitem', { name: `Run ${runId}, succeeded` });
      await refreshUntil(page.getByRole('button', { name: 'Refresh runs' }), run, 'HTTP 200');
      await run.getByText('Step 2 (delay)').waitFor();
      await screenshot(page, '08-workflow-runs');

      await page.getByRole('button', { name: 'Deactivate' }).click();
      await page.getByText('the trigger URL answers 404 from now on').waitFor();
      const after = await fetch(triggerUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(after.status).toBe(404);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'looks up a send: status, history, diag code, bounce type, and an unknown id',
    async () => {
      const send = async (email: string) => (await internal('/sends', { accountId: account.id, email, channel: 'api_v3' }).expect(201)).body.id as string;
      const deliveredId = await send('jane@example.com');
      await internal(`/sends/${deliveredId}/events`, { status: 'sent' }).expect(202);
      await internal(`/sends/${deliveredId}/events`, { status: 'delivered', diagCode: '250 2.0.0 OK queued as 4F2A' }).expect(202);
      const bouncedId = await send('nobody@example.com');
      await internal(`/sends/${bouncedId}/events`, { status: 'bounced', bounceType: 'hard', diagCode: '550 5.1.1 user unknown' }).expect(202);

      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Send status' }).click();
      await page.getByLabel('Send id').fill(deliveredId);
      await page.keyboard.press('Enter');
      const result = page.getByRole('region', { name: deliveredId });
      await result.getByText('250 2.0.0 OK queued as 4F2A').first().waitFor();
      await result.getByText('delivered', { exact: true }).first().waitFor();
      expect(await result.getByRole('row').count()).toBe(4); // header + queued, sent, delivered
      await screenshot(page, '09-send-status');

      await page.getByLabel('Send id').fill(bouncedId);
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.getByRole('region', { name: bouncedId }).getByText('hard (permanent)').waitFor();

      await page.getByLabel('Send id').fill('msg_00000000000000000000000000');
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.getByText('No send msg_00000000000000000000000000 in this account').waitFor();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'reads on a narrow screen without sideways scrolling',
    async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Automations' }).click();
      await page.getByRole('listitem', { name: 'Workflow Paid orders to CRM' }).waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await screenshot(page, '10-narrow-automations');
      await page.getByRole('link', { name: 'Paid orders to CRM' }).click();
      await page.getByRole('heading', { name: 'Runs' }).waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await page.setViewportSize({ width: 1100, height: 820 });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'used the public v3 API alone, never put the key in a URL or a log line, and ran without CSP or script errors',
    async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API key').waitFor();
      expect(await page.evaluate('sessionStorage.length')).toBe(0);

      const paths = browser.requests.filter((url) => !url.startsWith('data:')).map((url) => new URL(url));
      expect(paths.every((u) => u.origin === origin)).toBe(true);
      const apiCalls = paths.filter((u) => !u.pathname.startsWith('/app'));
      expect(apiCalls.length).toBeGreaterThan(20);
      expect(apiCalls.filter((u) => !u.pathname.startsWith('/v3/'))).toEqual([]);
      expect(browser.requests.filter((url) => url.includes(account.apiKey))).toEqual([]);
      expect(sut.logs.filter((line) => line.includes(account.apiKey) || line.includes(webhook.secret))).toEqual([]);
      expect(browser.problems).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );
});
