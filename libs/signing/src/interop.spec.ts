import Stripe from 'stripe';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { generateSecret, sign } from './index';

/** What `sign` produces must pass the verifiers receivers already use: Stripe's and Standard Webhooks'. */

const unixNow = () => Math.floor(Date.now() / 1000);
const body = JSON.stringify({
  id: 'evt_01JD2X7Q9M3K8P4R6T1V5W0Y2Z',
  type: 'email.delivered',
  created: 1763776800,
  apiVersion: 'v3',
  account: { id: 42, name: 'Zoë & Co — "ünïcödé"' },
  data: { email: 'jane@example.com', idSending: 1001, sendingType: 1, diagCode: '250 2.0.0 OK', emoji: '🚀' },
});
const tampered = body.replace('jane@', 'jano@');

describe('stripe.webhooks.constructEvent', () => {
  const stripe = new Stripe('sk_test_x');

  it('accepts what sign produces, for the string and for the raw bytes', () => {
    const secret = generateSecret();
    const signed = sign({ secrets: [secret], body, timestamp: unixNow(), id: 'evt_1' });

    expect(stripe.webhooks.constructEvent(body, signed.signature, secret)).toMatchObject({ id: 'evt_01JD2X7Q9M3K8P4R6T1V5W0Y2Z' });
    expect(Stripe.webhooks.constructEvent(Buffer.from(body, 'utf8'), signed.signature, secret)).toMatchObject({ type: 'email.delivered' });
  });

  it('accepts a rotation header with either secret', () => {
    const [newer, older] = [generateSecret(), generateSecret()];
    const signed = sign({ secrets: [newer, older], body, timestamp: unixNow(), id: 'evt_1' });

    expect(() => stripe.webhooks.constructEvent(body, signed.signature, newer)).not.toThrow();
    expect(() => stripe.webhooks.constructEvent(body, signed.signature, older)).not.toThrow();
  });

  it('rejects a tampered body', () => {
    const secret = generateSecret();
    const signed = sign({ secrets: [secret], body, timestamp: unixNow(), id: 'evt_1' });

    expect(() => stripe.webhooks.constructEvent(tampered, signed.signature, secret)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
  });

  it('rejects another secret', () => {
    const signed = sign({ secrets: [generateSecret()], body, timestamp: unixNow(), id: 'evt_1' });

    expect(() => stripe.webhooks.constructEvent(body, signed.signature, generateSecret())).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
  });
});

describe('standardwebhooks Webhook.verify', () => {
  const headersOf = (signed: ReturnType<typeof sign>) => ({
    'webhook-id': signed.webhookId,
    'webhook-timestamp': signed.webhookTimestamp,
    'webhook-signature': signed.webhookSignature,
  });

  it('accepts what sign produces, for the string and for the raw bytes', () => {
    const secret = generateSecret();
    const signed = sign({ secrets: [secret], body, timestamp: unixNow(), id: 'evt_01JD2X7Q9M3K8P4R6T1V5W0Y2Z' });

    expect(new Webhook(secret).verify(body, headersOf(signed))).toEqual(JSON.parse(body));
    expect(new Webhook(secret).verify(Buffer.from(body, 'utf8'), headersOf(signed))).toEqual(JSON.parse(body));
  });

  it('accepts a rotation header with either secret', () => {
    const [newer, older] = [generateSecret(), generateSecret()];
    const signed = sign({ secrets: [newer, older], body, timestamp: unixNow(), id: 'evt_1' });

    expect(() => new Webhook(newer).verify(body, headersOf(signed))).not.toThrow();
    expect(() => new Webhook(older).verify(body, headersOf(signed))).not.toThrow();
  });

  it('produces the same signature as its own signer', () => {
    const secret = generateSecret();
    const timestamp = unixNow();
    const signed = sign({ secrets: [secret], body, timestamp, id: 'evt_1' });

    expect(signed.webhookSignature).toBe(new Webhook(secret).sign('evt_1', new Date(timestamp * 1000), body));
  });

  it('rejects a tampered body', () => {
    const secret = generateSecret();
    const signed = sign({ secrets: [secret], body, timestamp: unixNow(), id: 'evt_1' });

    expect(() => new Webhook(secret).verify(tampered, headersOf(signed))).toThrow(WebhookVerificationError);
  });

  it('rejects another secret', () => {
    const signed = sign({ secrets: [generateSecret()], body, timestamp: unixNow(), id: 'evt_1' });

    expect(() => new Webhook(generateSecret()).verify(body, headersOf(signed))).toThrow(WebhookVerificationError);
  });
});
