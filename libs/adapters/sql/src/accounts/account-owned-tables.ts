import { AUTOMATION_STEP_TOPIC } from '../../../../automations/src/run-step-work';
import { DELIVERY_TOPIC } from '../../../../event-webhooks/src/deliveries/delivery-work';

/**
 * Rows of one table that an account owns, found a batch at a time through an index:
 * - `owner: 'account'`: the table's own `account_id` (indexed);
 * - `owner: { parentColumn }`: the rows that hang off a batch of the parent's rows (a child).
 * `accountColumn` adds `account_id = ?` to every statement (ids unique per account only, or as a guard).
 */
export interface OwnedTable {
  table: string;
  /** The column that identifies a row in a DELETE (with account_id when `accountColumn`). */
  key: string;
  owner: 'account' | { parentColumn: string };
  accountColumn?: boolean;
  /** Columns read besides `key` (e.g. `seq`, which names the row's queued work). */
  read?: string[];
  /** Deleted with each batch, before it: child tables and the queued work naming the rows. */
  children?: Array<OwnedTable | QueuedWork>;
}

/** Waiting queue items (database queue's `work_items`, NATS's `outbox`) whose dedup key names a row. */
export interface QueuedWork {
  topic: string;
  dedupKey: (row: Record<string, unknown>) => string;
}

const workKey = (row: Record<string, unknown>) => `${String(row.id)}:${Number(row.seq)}`;

/**
 * Everything an account owns, in the order it is deleted. Adding a table is one entry here (or
 * one child of the entry its rows hang off). Work items already handed to NATS cannot be taken
 * back: their workers find the row gone and drop them.
 */
export const ACCOUNT_OWNED_TABLES: OwnedTable[] = [
  { table: 'api_keys', key: 'id', owner: 'account' },
  {
    table: 'webhooks',
    key: 'id',
    owner: 'account',
    children: [
      { table: 'webhook_attempt_stats', key: 'webhook_id', owner: { parentColumn: 'webhook_id' } },
      { table: 'webhook_delivery_counts', key: 'webhook_id', owner: { parentColumn: 'webhook_id' } },
    ],
  },
  { table: 'webhook_targets', key: 'id', owner: 'account' },
  { table: 'workflows', key: 'id', owner: 'account', children: [{ table: 'workflow_targets', key: 'workflow_id', owner: { parentColumn: 'workflow_id' } }] },
  { table: 'automation_runs', key: 'id', owner: 'account', read: ['seq'], children: [{ topic: AUTOMATION_STEP_TOPIC, dedupKey: workKey }] },
  {
    table: 'events',
    key: 'id',
    owner: 'account',
    accountColumn: true,
    children: [
      {
        table: 'deliveries',
        key: 'id',
        owner: { parentColumn: 'event_id' },
        accountColumn: true,
        read: ['seq'],
        // a new delivery's first item has no dedup key: its worker finds the row gone and drops it
        children: [{ table: 'delivery_attempts', key: 'delivery_id', owner: { parentColumn: 'delivery_id' } }, { topic: DELIVERY_TOPIC, dedupKey: workKey }],
      },
    ],
  },
  { table: 'sends', key: 'id', owner: 'account', accountColumn: true, children: [{ table: 'send_history', key: 'send_id', owner: { parentColumn: 'send_id' } }] },
];
