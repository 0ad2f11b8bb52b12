import { WorkItem } from '../../../kernel/src';

/** Queue topic of event deliveries; an item names one delivery at one seq. */
export const DELIVERY_TOPIC = 'webhook-delivery';

export interface DeliveryWorkPayload {
  deliveryId: string;
  seq: number;
}

export function deliveryWorkItem(deliveryId: string, seq: number, runAt: Date): WorkItem {
  const payload: DeliveryWorkPayload = { deliveryId, seq };
  // A new delivery (seq 0) gets one item at intake and no other: only rescheduled ones need the
  // dedup key, which costs the intake a unique-index check (and its locks) per row.
  // The DeliverySweeper re-queues a waiting delivery whose item was lost.
  return { topic: DELIVERY_TOPIC, payload: { ...payload }, runAt, sweptBackIfLost: true, ...(seq === 0 ? {} : { key: `${deliveryId}:${seq}` }) };
}

export function readDeliveryWorkPayload(payload: Record<string, unknown>): DeliveryWorkPayload | null {
  const { deliveryId, seq } = payload;
  if (typeof deliveryId !== 'string' || typeof seq !== 'number' || !Number.isSafeInteger(seq)) return null;
  return { deliveryId, seq };
}
