import type { AppConfig } from '../../config/load-config';
import { Clock, WorkQueue } from '../kernel/src';
import { DatabaseWorkQueue } from './database-queue/src/database-work-queue';
import { NatsWorkQueue } from './nats/src/nats-work-queue';
import { TypeormDatabase } from './typeorm/src/typeorm-database';

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
      return NatsWorkQueue.create(db, clock, { servers: config.queue.natsUrl, prefix: config.queue.natsPrefix });
    default: {
      const exhaustive: never = kind;
      throw new Error(`unknown queue ${String(exhaustive)}`);
    }
  }
}
