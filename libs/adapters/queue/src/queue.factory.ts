import type { AppConfig } from '../../../../config/load-config';
import { Clock, WorkQueue } from '../../../kernel/src';
import { DatabaseWorkQueue } from './database/database-work-queue';
import { NatsWorkQueue } from './nats/nats-work-queue';
import { TypeormDatabase } from '../../sql/src/typeorm-database';

export interface ClosableWorkQueue extends WorkQueue {
  close(): Promise<void>;
}

/** The one place the queue adapter is chosen. */
export async function createWorkQueue(config: AppConfig, db: TypeormDatabase, clock: Clock): Promise<ClosableWorkQueue> {
  const kind = config.queue.kind;
  switch (kind) {
    case 'database':
      return new DatabaseWorkQueue(db, clock);
    case 'nats':
      // A dead dispatcher's messages come back after the ack wait, so it is kept short; busy
      // handlers extend it (working()) every third of it. Twice the delivery timeout, at least 15 s.
      return NatsWorkQueue.create(db, clock, {
        servers: config.queue.natsUrl,
        prefix: config.queue.natsPrefix,
        replicas: config.queue.natsReplicas,
        ackWaitMs: Math.max(15_000, 2 * config.delivery.timeoutMs),
      });
    default: {
      const exhaustive: never = kind;
      throw new Error(`unknown queue ${String(exhaustive)}`);
    }
  }
}
