import { WorkItem } from '../../../kernel/src';

/** Queue topic of event deliveries; an item names one delivery at one seq. */
export const DELIVERY_TOPIC = 'webhook-delivery';

export interface DeliveryWorkPayload {
  deliveryId: string;
  seq: number;
  /**
   * The lane of a new delivery's first attempt, set at intake: with the webhook already in the
   * dispatcher's memory, the item is claimed as it arrives, without a read first. The row still
   * decides (the claim checks status, seq and due time; the webhook is checked as of the claim).
   */
  firstAttempt?: { webhookId: string; accountId: number };
}

export function deliveryWorkItem(deliveryId: string, seq: number, runAt: Date, firstAttempt?: DeliveryWorkPayload['firstAttempt']): WorkItem {
  const payload: DeliveryWorkPayload = { deliveryId, seq, ...(firstAttempt ? { firstAttempt } : {}) };
  // A new delivery (seq 0) gets one item at intake and no other: only rescheduled ones need the
  // dedup key, which costs the intake a unique-index check (and its locks) per row.
  // The DeliverySweeper re-queues a waiting delivery whose item was lost.
  return { topic: DELIVERY_TOPIC, payload: { ...payload }, runAt, sweptBackIfLost: true, ...(seq === 0 ? {} : { key: `${deliveryId}:${seq}` }) };
}

export function readDeliveryWorkPayload(payload: Record<string, unknown>): DeliveryWorkPayload | null {
  const { deliveryId, seq, firstAttempt } = payload;
  if (typeof deliveryId !== 'string' || typeof seq !== 'number' || !Number.isSafeInteger(seq)) return null;
  return { deliveryId, seq, ...(isLane(firstAttempt) ? { firstAttempt: { webhookId: firstAttempt.webhookId, accountId: firstAttempt.accountId } } : {}) };
}

/** An item of an earlier release, or a malformed hint, has none: it is read first, as before. */
function isLane(value: unknown): value is NonNullable<DeliveryWorkPayload['firstAttempt']> {
  if (typeof value !== 'object' || value === null) return false;
  const { webhookId, accountId } = value as Record<string, unknown>;
  return typeof webhookId === 'string' && typeof accountId === 'number' && Number.isSafeInteger(accountId);
}
