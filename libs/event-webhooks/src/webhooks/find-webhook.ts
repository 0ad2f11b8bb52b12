import { looksLikeId } from '../../../kernel/src';
import { webhookNotFound } from '../event-webhooks.errors';
import { Webhook } from './webhook';
import { WebhookRepository } from './webhook.repository';

/**
 * The account's webhook of that id; `not_found` for an unknown id and for another account's.
 * `lock`: held until the unit of work ends (WebhookRepository.lockForAccount).
 */
export async function findAccountWebhook(webhooks: WebhookRepository, accountId: number, id: string, { lock = false } = {}): Promise<Webhook> {
  const webhook = !looksLikeId('wh', id) ? null : lock ? await webhooks.lockForAccount(accountId, id) : await webhooks.findForAccount(accountId, id);
  if (!webhook) throw webhookNotFound(id);
  return webhook;
}
