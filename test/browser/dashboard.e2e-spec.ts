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
  /** The webhook's stats as the API gives them (CONTRACT §9.3). */
  const apiStats = async () => (await apiGet(`/Webhook/${webhook.id}/stats`)) as { successRate: number | null; latencyMs: { p95: number | null }; buckets: unknown[] };
  const deliveryRows = () => page.getByRole('table', { name: 'Deliveries, newest first' }).locator('tbody tr');
  const deliveryRow = (eventId: string) => deliveryRows().filter({ hasText: eventId });
  const openDelivery = async (eventId: string) => {
    await page.getByRole('button', { name: new RegExp(`^Details of delivery \\S+ ${eventId}$`) }).click();
    const panel = page.getByRole('region', { name: /^Delivery del_/ });
    await panel.getByText(eventId).first().waitFor();
    return panel;
  };
  /** Every <time> on the page in the one format: `2025-11-22 02:00:00 UTC` (the browser runs in UTC). */
  const expectOneDateFormat = async () => {
    const shown = await page.locator('time').allInnerTexts();
    expect(shown.length).toBeGreaterThan(0);
    for (const text of shown) expect(text).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
  };
  const apiCallsSince = (index: number) => browser.requests.slice(index).filter((url) => new URL(url).pathname.startsWith('/v3/'));
  const eventIdsReceived = (receiver: Receiver) => receiver.requests.map((r) => JSON.parse(r.body).id as string);
  const webhookCard = () => page.getByRole('listitem', { name: `Webhook ${webhook.url}` });
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
    'creates a webhook from a picker that describes each type with an example payload, shows an API error in words, and the secret once',
    async () => {
      await page.getByRole('button', { name: 'New webhook' }).click();
      await page.getByRole('group', { name: 'email' }).waitFor();
      const catalog = (await apiGet('/events/types')).types as Array<{ type: string; description: string }>;
      expect(await page.getByRole('group', { name: 'Events' }).getByRole('checkbox', { name: /^[a-z_]+(\.[a-z_]+)+$/ }).count()).toBe(catalog.length);

      // Each type: its description, and an example generated from its schema.
      const deliveredType = catalog.find((t) => t.type === 'email.delivered')!;
      await expect(page.getByRole('checkbox', { name: 'email.delivered', exact: true }).getAttribute('aria-describedby')).resolves.toBeTruthy();
      await page.getByText(deliveredType.description, { exact: true }).first().waitFor();
      await page.getByText('Example payload of email.delivered').click();
      const example = JSON.parse(await page.getByLabel('Example data of email.delivered').innerText());
      expect(Object.keys(example)).toEqual(['email', 'idSending', 'sendingType', 'diagCode', 'deliveredAt']);
      expect(example).toMatchObject({ email: 'jane@example.com', deliveredAt: '2025-11-22T02:00:00.000Z' });
      // The example is valid data: the intake accepts it as is.
      await internal('/events', { accountId: account.id, type: 'email.delivered', data: example }).expect(202);

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
    'keeps the list live: the server disabling the webhook shows up without a click, with its reason and 24 h health; polling pauses while the tab is hidden',
    async () => {
      hooks.respond({ status: 500, body: 'receiver down' });
      const failing = await publish(1);
      await eventually(async () => expect((await apiGet(`/Webhook/${webhook.id}`)).state).toBe('disabled'), WAIT_MS);
      expect((await apiGet(`/Webhook/${webhook.id}`)).disabledReason).toBe('consecutive_failures');

      // No Refresh click: the page polls while it is open.
      await webhookCard().getByText('disabled by the server after 3 consecutive failed delivery attempts').waitFor({ timeout: WAIT_MS });
      await expect(webhookCard().getByText('disabled', { exact: true }).isVisible()).resolves.toBe(true);
      const stats = await apiStats();
      const rate = webhookCard().locator('dt:text-is("Success rate (24 h)") + dd');
      expect(stats.successRate).toBe(0);
      await eventually(async () => expect(await rate.innerText()).toBe('0 %'), WAIT_MS);
      expect(await webhookCard().locator('dt:text-is("p95 latency (24 h)") + dd').innerText()).toMatch(/^\d+ ms$/);
      await expectOneDateFormat();
      await screenshot(page, '04-webhooks-disabled');
      expect(eventIdsReceived(hooks)).toEqual([failing, failing, failing]);
      // Recorded as skipped while the webhook is disabled.
      await publish(2);

      // A hidden tab asks nothing; it catches up as soon as it is visible again.
      const setVisibility = (state: 'hidden' | 'visible') =>
        page.evaluate(`Object.defineProperty(document, 'visibilityState', { value: '${state}', configurable: true }); document.dispatchEvent(new Event('visibilitychange'));`);
      await setVisibility('hidden');
      const hiddenFrom = browser.requests.length;
      await page.waitForTimeout(9_000);
      expect(apiCallsSince(hiddenFrom)).toEqual([]);
      await setVisibility('visible');
      await eventually(() => expect(apiCallsSince(hiddenFrom).length).toBeGreaterThan(0), 2_000);

      hooks.respond({ status: 200, body: 'ok' });
      await page.getByRole('button', { name: `Enable webhook ${webhook.url}` }).click();
      await webhookCard().getByText('enabled', { exact: true }).waitFor();
      await page.getByRole('status').filter({ hasText: 'is now enabled' }).waitFor();
      expect((await apiGet(`/Webhook/${webhook.id}`)).disabledReason).toBeNull();

      const fresh = await publish(3);
      await eventually(() => expect(eventIdsReceived(hooks)).toContain(fresh), WAIT_MS);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'shows the delivery log as a dense table; the detail panel has the envelope as sent, the attempts and their request headers, and retry only where it makes sense',
    async () => {
      const [failing, whileDisabled, fresh] = events;
      await webhookCard().getByRole('link', { name: 'Deliveries and settings' }).click();
      await page.getByRole('heading', { level: 1, name: webhook.url }).waitFor();
      await deliveryRow(fresh).filter({ hasText: 'succeeded' }).waitFor({ timeout: WAIT_MS });

      // Newest first, one line each: status, type, event id, attempts, last HTTP status, time.
      const rows = await deliveryRows().allInnerTexts();
      expect(rows).toHaveLength(3);
      expect(rows[0]).toMatch(new RegExp(`succeeded\\s+email\\.delivered\\s+${fresh}\\s+1\\s+HTTP 200\\s+\\d{4}-`));
      expect(rows[1]).toMatch(new RegExp(`skipped\\s+email\\.delivered\\s+${whileDisabled}\\s+0\\s+—`));
      expect(rows[2]).toMatch(new RegExp(`skipped\\s+email\\.delivered\\s+${failing}\\s+3\\s+HTTP 500`));
      const headers = page.getByRole('table', { name: 'Deliveries, newest first' }).locator('thead th');
      expect(await headers.allInnerTexts()).toEqual(['Status', 'Event type', 'Event id', 'Attempts', 'Last HTTP status', 'Time']);

      // The health section: the figures and a chart of attempts per hour.
      const health = page.getByRole('region', { name: 'Last 24 hours' });
      const stats = await apiStats();
      await health.getByRole('img', { name: /^Attempts per hour from / }).waitFor();
      expect(await health.locator('rect.bucket-hit').count()).toBe(stats.buckets.length);
      expect(await health.locator('dt:text-is("Success rate") + dd').innerText()).toMatch(/^\d+(\.\d)? %$/);

      // The failing delivery in full.
      const panel = await openDelivery(failing);
      const envelope = JSON.parse(await panel.getByLabel('Envelope as sent').innerText());
      expect(envelope).toEqual(await apiGet(`/events/${failing}`));
      expect(JSON.stringify(envelope)).toBe(hooks.requests.find((r) => r.body.includes(failing))!.body);
      await panel.getByRole('listitem', { name: 'Attempt 3' }).getByText('HTTP 500').waitFor();
      await panel.getByText('receiver down').first().waitFor();
      const attempts = (await apiGet(`/Webhook/${webhook.id}/deliveries?limit=100`)).deliveries.find((d: { eventId: string }) => d.eventId === failing).attempts;
      const sentHeaders = panel.getByRole('table', { name: 'Request headers of attempt 1' });
      if (attempts[0].requestHeaders) {
        await sentHeaders.getByRole('row').filter({ hasText: 'x-service-event-id' }).filter({ hasText: failing }).waitFor();
        await sentHeaders.getByRole('row').filter({ hasText: 'webhook-signature' }).waitFor();
      } else {
        expect(await sentHeaders.count()).toBe(0);
      }
      await panel.getByRole('button', { name: 'Retry now' }).waitFor();
      await expectOneDateFormat();
      await screenshot(page, '05-delivery-log');

      // Succeeded: nothing to retry, but it can be sent once more (a receiver that lost what it got).
      const done = await openDelivery(fresh);
      await done.getByText('The endpoint answered 2xx.').waitFor();
      expect(await done.getByRole('button', { name: 'Retry now' }).count()).toBe(0);
      await done.getByRole('button', { name: 'Resend' }).waitFor();

      await page.getByLabel('Status', { exact: true }).selectOption('succeeded');
      await eventually(async () => expect(await deliveryRows().count()).toBe(1), WAIT_MS);
      await page.getByLabel('Status', { exact: true }).selectOption('');
      await eventually(async () => expect(await deliveryRows().count()).toBe(3), WAIT_MS);

      // Retry the delivery skipped while disabled: one attempt now, same event id; the table updates by itself.
      const skipped = await openDelivery(whileDisabled);
      await skipped.getByRole('button', { name: 'Retry now' }).click();
      await page.getByRole('status').filter({ hasText: `Retry of email.delivered (${whileDisabled}) queued` }).waitFor();
      await eventually(() => expect(eventIdsReceived(hooks)).toContain(whileDisabled), WAIT_MS);
      await deliveryRow(whileDisabled).filter({ hasText: 'succeeded' }).waitFor({ timeout: WAIT_MS });

      // Recover since a chosen time: the failing one comes back, and the page says how many.
      await page.getByLabel('Recover failed and skipped deliveries since').fill('2020-01-01T00:00:00');
      await page.getByRole('button', { name: 'Recover' }).click();
      await page.getByRole('status').filter({ hasText: '1 delivery requeued' }).waitFor();
      await eventually(() => expect(eventIdsReceived(hooks).filter((id) => id === failing)).toHaveLength(4), WAIT_MS);
      await deliveryRow(failing).filter({ hasText: 'succeeded' }).waitFor({ timeout: WAIT_MS });

      // A test event: the page says it is flagged; the receiver sees the flag once the server records request headers.
      await page.getByLabel('Test event type').selectOption('email.delivered');
      await page.getByRole('button', { name: 'Send test event' }).click();
      const said = await page.getByRole('status').filter({ hasText: /^Test event evt_/ }).innerText();
      expect(said).toContain('flagged as a test: it carries the header X-Service-Test: true');
      const testEventId = /evt_[A-Za-z0-9]+/.exec(said)![0];
      await eventually(() => expect(eventIdsReceived(hooks)).toContain(testEventId), WAIT_MS);
      const testDelivery = await eventually(async () => {
        const found = (await apiGet(`/Webhook/${webhook.id}/deliveries?limit=100`)).deliveries.find((d: { eventId: string; attempts: unknown[] }) => d.eventId === testEventId && d.attempts.length > 0);
        if (!found) throw new Error('no attempt yet');
        return found;
      }, WAIT_MS);
      if (testDelivery.attempts[0].requestHeaders) {
        expect(hooks.requests.find((r) => r.body.includes(testEventId))!.headers['x-service-test']).toBe('true');
        const testPanel = await openDelivery(testEventId);
        await testPanel.getByRole('table', { name: 'Request headers of attempt 1' }).getByRole('row').filter({ hasText: 'x-service-test' }).waitFor();
      }

      // Paging through nextCursor: 20 a page.
      await internal('/events/batch', { events: Array.from({ length: 20 }, (_, i) => ({ accountId: account.id, type: 'email.delivered', data: delivered(100 + i) })) }).expect(202);
      await eventually(async () => expect((await apiGet(`/Webhook/${webhook.id}/deliveries?limit=100`)).deliveries).toHaveLength(24), WAIT_MS);
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      await page.getByRole('button', { name: 'Load older deliveries' }).waitFor();
      expect(await deliveryRows().count()).toBe(20);
      await page.getByRole('button', { name: 'Load older deliveries' }).click();
      await eventually(async () => expect(await deliveryRows().count()).toBe(24), WAIT_MS);
      expect(await page.getByRole('button', { name: 'Load older deliveries' }).count()).toBe(0);
      await deliveryRow(failing).waitFor();
    },
    STEP_TIMEOUT_MS * 2,
  );

  it(
    'lists the event feed newest first, filters it by type, looks an event up by id and links to its delivery',
    async () => {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Events' }).click();
      await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
      const feed = (await apiGet('/events?limit=20')).events as Array<{ id: string; type: string }>;
      const rows = page.getByRole('table', { name: 'Events, newest first' }).locator('tbody tr');
      await rows.first().filter({ hasText: feed[0].id }).waitFor();
      const shown = await rows.allInnerTexts();
      expect(shown.map((row) => /evt_\S+/.exec(row)![0])).toEqual(feed.map((e) => e.id));
      await expectOneDateFormat();

      // Live: a new event appears on its own.
      const live = await publish(200);
      await rows.first().filter({ hasText: live }).waitFor({ timeout: WAIT_MS });
      await page.getByLabel('Type', { exact: true }).selectOption('email.bounced');
      await page.getByText('No events of type email.bounced yet.').waitFor();
      await page.getByLabel('Type', { exact: true }).selectOption('email.delivered');
      const deliveredEvents = (await apiGet('/events?type=email.delivered&limit=100')).events as Array<{ id: string }>;
      await eventually(async () => expect(await rows.count()).toBe(Math.min(20, deliveredEvents.length)), WAIT_MS);
      await page.getByLabel('Type', { exact: true }).selectOption('');

      const [, whileDisabled] = events;
      await page.getByLabel('Event id', { exact: true }).fill(whileDisabled);
      await page.getByRole('button', { name: 'Look up' }).click();
      const detail = page.getByRole('region', { name: `Event ${whileDisabled}` });
      const envelope = JSON.parse(await detail.getByLabel('Envelope', { exact: true }).innerText());
      expect(envelope).toMatchObject({ id: whileDisabled, type: 'email.delivered', apiVersion: 'v3', account: { id: account.id, name: 'Acme' } });
      // where it went, with its status, as GET /v3/events/{id}/deliveries tells
      const [went] = (await apiGet(`/events/${whileDisabled}/deliveries`)).deliveries as Array<{ webhookId: string; status: string }>;
      expect(went.webhookId).toBe(webhook.id);
      await detail.getByRole('list', { name: 'Deliveries of this event' }).getByRole('listitem').filter({ hasText: went.status }).waitFor();
      await screenshot(page, '06-events');

      await detail.getByRole('link', { name: `Delivery to ${webhook.url}` }).click();
      await page.getByRole('heading', { level: 1, name: webhook.url }).waitFor();
      const panel = page.getByRole('region', { name: /^Delivery del_/ });
      await panel.getByText(whileDisabled).first().waitFor();
      expect(page.url()).toContain(`?event=${whileDisabled}`);

      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Events' }).click();
      await page.getByLabel('Event id', { exact: true }).fill('evt_does_not_exist');
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.getByRole('alert').filter({ hasText: 'not_found, HTTP 404' }).waitFor();
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Webhooks' }).click();
      await webhookCard().getByRole('link', { name: 'Deliveries and settings' }).click();
      await page.getByRole('heading', { level: 1, name: webhook.url }).waitFor();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'edits the URL and events, rotates the secret (shown once), disables by hand (reason shown), and deletes after a confirmation',
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
      await page.getByText('disabled by hand').waitFor();
      expect(await apiGet(`/Webhook/${webhook.id}`)).toMatchObject({ state: 'disabled', disabledReason: 'manual' });

      // Disabled: a test event is recorded skipped and the page says so; retry and recover are not offered.
      await page.getByRole('button', { name: 'Send test event' }).click();
      await page.getByRole('status').filter({ hasText: 'was recorded as skipped: the webhook is disabled' }).waitFor();
      expect(await page.getByRole('button', { name: 'Recover', exact: true }).count()).toBe(0);
      await page.getByText('The webhook is disabled: enable it to recover or retry its deliveries.').waitFor();
      // A click anywhere on a row opens its delivery (on a narrow screen the id column may be out of view).
      const skippedRow = page.getByRole('table', { name: 'Deliveries, newest first' }).getByRole('row').filter({ hasText: 'skipped' }).first();
      await skippedRow.waitFor({ timeout: WAIT_MS });
      await skippedRow.locator('td').first().click();
      const skippedPanel = page.getByRole('region', { name: /^Delivery / });
      await skippedPanel.getByText('Recover or retry it once the webhook is enabled.').waitFor();
      expect(await skippedPanel.getByRole('button', { name: 'Retry now' }).count()).toBe(0);

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
      await screenshot(page, '07-target-created-key');
      await page.getByRole('button', { name: 'I have saved it' }).click();
      await page.getByRole('listitem', { name: 'Target CRM' }).getByText('X-Team').waitFor();

      // Edit the target (PUT): the header value changes, the signing key stays.
      await page.getByRole('button', { name: 'Edit target CRM' }).click();
      const targetForm = page.getByRole('form', { name: 'Edit webhook target CRM' });
      await targetForm.getByLabel('Header 1 value').fill('growth-eu');
      await targetForm.getByRole('button', { name: 'Save target' }).click();
      await targetForm.waitFor({ state: 'detached' });
      const [savedTarget] = (await apiGet('/automations/webhook-targets')).targets;
      expect(savedTarget).toMatchObject({ name: 'CRM', headers: { 'X-Team': 'growth-eu' }, signed: true });

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
      await screenshot(page, '08-workflow-activated');
      await page.getByRole('button', { name: 'I have saved it' }).click();
      expect(await page.content()).not.toContain(triggerUrl);

      const call = await fetch(triggerUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ order: { id: 'o-42', total: 12.5 } }) });
      expect(call.status).toBe(202);
      const { runId } = (await call.json()) as { runId: string };
      await eventually(() => expect(crm.requests).toHaveLength(1), WAIT_MS);
      const [received] = crm.requests;
      expect(JSON.parse(received.body)).toEqual({ order: 'o-42', total: 12.5, run: runId });
      expect(received.headers['x-team']).toBe('growth-eu');
      expect(received.headers['x-service-automation-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

      const run = page.getByRole('listitem', { name: `Run ${runId}, succeeded` });
      await refreshUntil(page.getByRole('button', { name: 'Refresh runs' }), run, 'HTTP 200');
      await run.getByText('Step 2 (delay)').waitFor();
      await screenshot(page, '09-workflow-runs');

      // Edit the workflow (PUT) with a live preview of the template against a sample trigger body.
      await page.getByRole('button', { name: 'Edit name and steps' }).click();
      const editor = page.getByRole('form', { name: 'Edit workflow' });
      const preview = editor.getByLabel('Preview of step 1');
      expect(JSON.parse(await preview.innerText())).toEqual({ order: 'o-42', total: 12.5, run: 'run_preview' });
      await editor.getByLabel('Sample trigger body (JSON, for the previews below; not saved)').fill('{"order": {"id": "o-7", "total": 99}}');
      await eventually(async () => expect(JSON.parse(await preview.innerText())).toMatchObject({ order: 'o-7', total: 99 }), WAIT_MS);
      const template = editor.getByLabel('Body template (JSON)');
      await template.fill('{"order": "{{ trigger.body.order.id }}",');
      await preview.filter({ hasText: 'The body template is not valid JSON' }).waitFor();
      await template.fill('{"text": "Order {{ trigger.body.order.id }} of {{ workflow.name }}: {{ trigger.body.order.total }}", "total": "{{ trigger.body.order.total }}"}');
      await eventually(async () => expect(JSON.parse(await preview.innerText())).toEqual({ text: 'Order o-7 of Paid orders to CRM: 99', total: 99 }), WAIT_MS);
      await screenshot(page, '10-workflow-edit-preview');
      await editor.getByRole('button', { name: 'Save workflow' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved: the next runs use these steps.' }).waitFor();
      const saved = await apiGet(`/automations/workflows/${/wf_[0-9a-z]+/.exec(page.url())![0]}`);
      expect(saved.steps[0].body).toEqual({ text: 'Order {{ trigger.body.order.id }} of {{ workflow.name }}: {{ trigger.body.order.total }}', total: '{{ trigger.body.order.total }}' });

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
      await screenshot(page, '11-send-status');

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
    "keeps the older deliveries a user loaded through live refresh, shows a v2 webhook's envelope as its receiver got it, and clears a description",
    async () => {
      await page.goto(`${origin}/app`);
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      const v2 = await sut
        .http()
        .post('/v2/webhooks')
        .set('api-key', account.apiKey)
        .send({ url: `${hooks.url}/v2-family`, events: ['email.delivered'], description: 'to be cleared' })
        .expect(201);
      // more than the 100 a live refresh reads again
      const batch = await internal('/events/batch', { events: Array.from({ length: 125 }, (_, i) => ({ accountId: account.id, type: 'email.delivered', data: delivered(9000 + i) })) }).expect(202);
      const newest = batch.body.ids[124] as string;
      await eventually(() => expect(hooks.requestsTo('/v2-family')).toHaveLength(125), WAIT_MS);
      await page.goto(`${origin}/app/webhooks/${v2.body.id}`);
      await deliveryRows().nth(19).waitFor();

      const older = page.getByRole('button', { name: 'Load older deliveries' });
      for (let shown = 20; shown < 125; shown += 20) {
        await older.click();
        await deliveryRows().nth(Math.min(shown + 20, 125) - 1).waitFor();
      }
      expect(await older.count()).toBe(0);
      // two live refreshes (every 4 s) later, all 125 are still there
      await page.waitForTimeout(8_500);
      expect(await deliveryRows().count()).toBe(125);
      const latest = await publish(9200);
      await deliveryRow(latest).waitFor({ timeout: WAIT_MS });
      expect(await deliveryRows().count()).toBe(126);

      const panel = await openDelivery(newest);
      const shown = await panel.getByLabel('Envelope as sent').innerText();
      const received = hooks.requestsTo('/v2-family').find((r) => r.body.includes(newest))!.body;
      expect(JSON.parse(shown)).toEqual(JSON.parse(received));
      expect(JSON.parse(shown).apiVersion).toBe('v2');

      await page.getByRole('button', { name: 'Edit URL and events' }).click();
      // the form takes the focus its button had
      expect(await page.evaluate('document.activeElement?.getAttribute("type")')).toBe('url');
      const form = page.getByRole('form', { name: 'Edit webhook' });
      await form.getByLabel('Description (optional)').fill('');
      await form.getByRole('button', { name: 'Save changes' }).click();
      await eventually(async () => expect((await apiGet(`/Webhook/${v2.body.id}`)).description).toBeNull(), WAIT_MS);
      await sut.http().delete(`/v3/Webhook/${v2.body.id}`).set('api-key', account.apiKey).expect(204);
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
      await screenshot(page, '12-narrow-automations');
      await page.getByRole('link', { name: 'Paid orders to CRM' }).click();
      await page.getByRole('heading', { name: 'Runs' }).waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Events' }).click();
      await page.getByRole('table', { name: 'Events, newest first' }).waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await screenshot(page, '13-narrow-events');

      // A description with no place to break wraps anyway; a webhook with no attempt yet has a peak of 0.
      const long = (await sut.http().post('/v3/Webhook').set('api-key', account.apiKey).send({ url: 'https://example.com/long', events: ['sms.sent'], description: 'D'.repeat(120) }).expect(201)).body;
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.getByText('D'.repeat(120)).waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await page.getByRole('listitem', { name: 'Webhook https://example.com/long' }).getByRole('link', { name: 'Deliveries and settings' }).click();
      await page.getByText('peak 0 per hour').waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await sut.http().delete(`/v3/Webhook/${long.id}`).set('api-key', account.apiKey).expect(204);
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
