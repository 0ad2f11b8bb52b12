import type { DeliveryView, WebhookView } from '../../../../libs/event-webhooks/src';
import { snakeCase } from '../http/family-casing';
import { documentedKeys } from '../openapi/snake-case-model';
import { DeliveryAttemptV2View, DeliveryAttemptV3View, DeliveryV2View, DeliveryV3View, WEBHOOK_VIEWS } from './event-webhooks.views';
import { WebhookPresenter } from './webhook.presenter';

const at = new Date('2025-11-22T02:00:00.000Z');
const view: WebhookView = {
  id: 'wh_01jd2x7q9m3k8p4r6t1v5w0y2z',
  url: 'https://crm.example.com/hooks',
  events: ['email.delivered', 'list.contact_added'],
  description: null,
  state: 'disabled',
  apiVersion: 'v2',
  consecutiveFailures: 10,
  disabledAt: at,
  disabledReason: 'consecutive_failures',
  createdAt: at,
  updatedAt: at,
};
const delivery: DeliveryView = {
  id: 'del_01jd2x7q9m3k8p4r6t1v5w0y2z',
  eventId: 'evt_01jd2x7q9m3k8p4r6t1v5w0y2z',
  eventType: 'email.delivered',
  status: 'retrying',
  attempts: [{ at, durationMs: 12, httpStatus: 500, error: null, responseBody: '{"retryAfter":1}', requestHeaders: { 'x-service-event-id': 'evt_01jd2x7q9m3k8p4r6t1v5w0y2z' } }],
  nextAttemptAt: at,
  createdAt: at,
};

describe(WebhookPresenter.name, () => {
  it('shows a webhook in camelCase on v3, ISO times, nulls kept, the secret last and only when given', () => {
    const sut = new WebhookPresenter('v3');
    expect(sut.webhook(view)).toEqual({
      id: view.id,
      url: view.url,
      events: view.events,
      description: null,
      state: 'disabled',
      apiVersion: 'v2',
      consecutiveFailures: 10,
      disabledAt: '2025-11-22T02:00:00.000Z',
      disabledReason: 'consecutive_failures',
      createdAt: '2025-11-22T02:00:00.000Z',
      updatedAt: '2025-11-22T02:00:00.000Z',
    });
    expect(Object.keys(sut.webhook(view, 'whsec_x')).pop()).toBe('secret');
    expect(sut.webhook({ ...view, disabledAt: null }).disabledAt).toBeNull();
    expect(sut.webhook({ ...view, state: 'enabled', disabledAt: null, disabledReason: null }).disabledReason).toBeNull();
  });

  it('shows the same fields in snake_case on v2, leaving values such as event types alone', () => {
    const sut = new WebhookPresenter('v2');
    expect(Object.keys(sut.webhook(view, 'whsec_x'))).toEqual([
      'id',
      'url',
      'events',
      'description',
      'state',
      'api_version',
      'consecutive_failures',
      'disabled_at',
      'disabled_reason',
      'created_at',
      'updated_at',
      'secret',
    ]);
    expect(sut.webhooks([view]).webhooks[0]).toMatchObject({ events: ['email.delivered', 'list.contact_added'] });
    expect(sut.testAccepted('evt_1')).toEqual({ event_id: 'evt_1' });
  });

  it('pages deliveries in either casing, response bodies untouched', () => {
    const page = { deliveries: [delivery], nextCursor: null };
    expect(new WebhookPresenter('v3').deliveryPage(page)).toEqual({
      deliveries: [
        {
          id: delivery.id,
          eventId: delivery.eventId,
          eventType: 'email.delivered',
          status: 'retrying',
          attempts: [
            {
              at: '2025-11-22T02:00:00.000Z',
              durationMs: 12,
              httpStatus: 500,
              error: null,
              responseBody: '{"retryAfter":1}',
              requestHeaders: { 'x-service-event-id': delivery.eventId },
            },
          ],
          nextAttemptAt: '2025-11-22T02:00:00.000Z',
          createdAt: '2025-11-22T02:00:00.000Z',
        },
      ],
      nextCursor: null,
    });
    expect(new WebhookPresenter('v2').deliveryPage(page)).toEqual({
      deliveries: [
        {
          id: delivery.id,
          event_id: delivery.eventId,
          event_type: 'email.delivered',
          status: 'retrying',
          attempts: [
            {
              at: '2025-11-22T02:00:00.000Z',
              duration_ms: 12,
              http_status: 500,
              error: null,
              response_body: '{"retryAfter":1}',
              // header names stay as sent
              request_headers: { 'x-service-event-id': delivery.eventId },
            },
          ],
          next_attempt_at: '2025-11-22T02:00:00.000Z',
          created_at: '2025-11-22T02:00:00.000Z',
        },
      ],
      next_cursor: null,
    });
  });

  it('documents exactly the keys it produces, in both families', () => {
    for (const family of ['v3', 'v2'] as const) {
      const sut = new WebhookPresenter(family);
      const views = WEBHOOK_VIEWS[family];
      expect(documentedKeys(views.created)).toEqual(Object.keys(sut.webhook(view, 'whsec_x')));
      expect(documentedKeys(views.list)).toEqual(Object.keys(sut.webhooks([view])));
      expect(documentedKeys(views.testAccepted)).toEqual(Object.keys(sut.testAccepted('evt_1')));
      const page = sut.deliveryPage({ deliveries: [delivery], nextCursor: 'del_x' });
      expect(documentedKeys(views.deliveryPage)).toEqual(Object.keys(page));
      const [deliveryView, attemptView] = family === 'v3' ? [DeliveryV3View, DeliveryAttemptV3View] : [DeliveryV2View, DeliveryAttemptV2View];
      const shown = (page as unknown as Record<string, Array<{ attempts: object[] }>>).deliveries[0];
      expect(documentedKeys(deliveryView)).toEqual(Object.keys(shown));
      expect(documentedKeys(attemptView)).toEqual(Object.keys(shown.attempts[0]));
    }
    expect(snakeCase('nextAttemptAt')).toBe('next_attempt_at');
  });
});
