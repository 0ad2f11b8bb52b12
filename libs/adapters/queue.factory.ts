import type { AppConfig } from '../../config/load-config';
import { Clock, WorkQueue } from '../kernel/src';
import { TypeormDatabase } from './typeorm/src/typeorm-database';

export interface ClosableWorkQueue extends WorkQueue {
  close(): Promise<void>;
}

/** The one place the queue adapter is chosen. (Filled in by the queue adapters.) */
export async function createWorkQueue(config: AppConfig, db: TypeormDatabase, clock: Clock): Promise<ClosableWorkQueue> {
  void db;
  void clock;
  throw new Error(`queue ${config.queue.kind} is not wired yet`);
}
