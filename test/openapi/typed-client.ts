import createClient from 'openapi-fetch';
import type { components, paths } from '../../apps/web/src/api/openapi';

type Schemas = components['schemas'];

/**
 * A small integrator's program: the client is openapi-fetch typed by the types openapi-typescript
 * generates from docs/openapi.json, so a path, a field or an answer the document does not have
 * is a compile error (the e2e test type-checks this file on its own, then runs it).
 */
export function typedClient(baseUrl: string, apiKey: string) {
  return createClient<paths>({ baseUrl, headers: { 'api-key': apiKey } });
}

export type TypedClient = ReturnType<typeof typedClient>;

/** Subscribes a receiver, reads the webhook back from both families and pages its deliveries. */
export async function subscribe(client: TypedClient, url: string): Promise<{ created: Schemas['CreatedWebhookV3View']; v2: Schemas['WebhookV2View'] }> {
  const created = await client.POST('/v3/Webhook', { body: { url, events: ['email.delivered'], description: 'typed client' } });
  if (!created.data) throw new Error(`create failed: ${created.error?.code}`);
  const v2 = await client.GET('/v2/webhooks/{id}', { params: { path: { id: created.data.id } } });
  if (!v2.data) throw new Error(`read failed: ${v2.error?.code}`);
  const page = await client.GET('/v3/Webhook/{id}/deliveries', { params: { path: { id: created.data.id }, query: { status: 'pending', limit: 10 } } });
  if (!page.data) throw new Error(`deliveries failed: ${page.error?.code}`);
  return { created: created.data, v2: v2.data };
}

/** The error answer is typed too: the contract's `{code, message}`. */
export async function readMissingWebhook(client: TypedClient): Promise<{ status: number; error: Schemas['Error'] | undefined }> {
  const { response, error } = await client.GET('/v3/Webhook/{id}', { params: { path: { id: 'wh_missing' } } });
  return { status: response.status, error };
}

/** The catalog, whose `description` is text and `schema` a JSON Schema object. */
export async function eventTypeDescriptions(client: TypedClient): Promise<string[]> {
  const { data } = await client.GET('/v3/events/types');
  return (data?.types ?? []).map((type) => `${type.type}: ${type.description}`);
}

/** The event feed of both families: the page's own cursor key is in the family's casing. */
export async function emptyFeedCursors(client: TypedClient): Promise<{ v3: string | null; v2: string | null }> {
  const v3 = await client.GET('/v3/events', { params: { query: { limit: 5 } } });
  const v2 = await client.GET('/v2/events', { params: { query: { type: 'email.delivered' } } });
  if (!v3.data || !v2.data) throw new Error(`feed failed: ${v3.error?.code ?? v2.error?.code}`);
  return { v3: v3.data.nextCursor, v2: v2.data.next_cursor };
}
