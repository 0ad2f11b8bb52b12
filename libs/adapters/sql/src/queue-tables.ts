/** The tables of the queue adapters: migrations create both on every installation, the queue in use fills one. */
export const QUEUE_TABLES = ['work_items', 'outbox'] as const;
