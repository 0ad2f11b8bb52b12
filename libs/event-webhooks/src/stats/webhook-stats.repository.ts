import type { DeliveryStatus } from '../deliveries/delivery';

/** Attempts of one webhook's deliveries created in one hour, whose durations fell in one latency bucket. */
export interface AttemptStatsRow {
  webhookId: string;
  /** The hour the deliveries were created in (epoch ms, on the hour). */
  hourStart: number;
  latencyBucket: number;
  succeeded: number;
  failed: number;
}

/** Deliveries created in part of an hour, by status, and their attempts as counter rows (all of that hour). */
export interface PartialHour {
  deliveries: Partial<Record<DeliveryStatus, number>>;
  attempts: AttemptStatsRow[];
}

/**
 * Counters kept as attempts are recorded (CONTRACT §9.3): the stats of a webhook are read from
 * them and from an index range of its deliveries, never by scanning all its attempts.
 */
export abstract class WebhookStatsRepository {
  /** Adds the rows to the counters, creating the missing ones. Call inside the attempts' unit of work. */
  abstract add(rows: AttemptStatsRow[]): Promise<void>;
  /** The counters of a webhook from `fromHour` (epoch ms, on the hour) on. */
  abstract read(webhookId: string, fromHour: number): Promise<AttemptStatsRow[]>;
  /** Deliveries of a webhook created from `fromHour` (epoch ms, on the hour) on, counted by status (statuses with none may be absent). */
  abstract countDeliveries(webhookId: string, fromHour: number): Promise<Partial<Record<DeliveryStatus, number>>>;
  /**
   * Deliveries of a webhook created from `from` until `untilHour` (epoch ms; the end of `from`'s
   * hour), and their attempts, read from the rows: the hour a window starts in, counted from its start.
   */
  abstract countPartialHour(webhookId: string, from: number, untilHour: number): Promise<PartialHour>;
  abstract deleteForWebhook(webhookId: string): Promise<void>;
  /** Removes up to `limit` counters (of attempts or deliveries) of hours before `beforeHour`; returns how many. */
  abstract purgeBefore(beforeHour: number, limit: number): Promise<number>;
}
