import { looksLikeId } from '../../../kernel/src';
import { webhookNotFound } from '../event-webhooks.errors';
import { Webhook } from './webhook';
import { WebhookRepository } from './webhook.repository';

/** The account's webhook of that id; `not_found` for an unknown id and for another account's. */
export async function findAccountWebhook(webhooks: WebhookRepository, accountId: number, id: string): Promise<Webhook> {
  const webhook = looksLikeId('wh', id) ? await webhooks.findForAccount(accountId, id) : null;
  if (!webhook) throw webhookNotFound(id);
  return webhook;
}
