import { AccountRepository, ApiKeyRepository } from '../../libs/accounts/src';
import { TypeormAccountRepository, TypeormApiKeyRepository } from '../../libs/adapters/sql/src/accounts/typeorm-account.repository';
import { TypeormAccountDeletion } from '../../libs/adapters/sql/src/accounts/typeorm-account-deletion';
import { TypeormWorkflowRepository } from '../../libs/adapters/sql/src/automations/typeorm-workflow.repository';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { AUTOMATION_STEP_TOPIC } from '../../libs/automations/src/run-step-work';
import { DELIVERY_TOPIC } from '../../libs/event-webhooks/src/deliveries/delivery-work';
import { openTestDatabase, TestDatabase } from '../support/databases';
import { serviceAvailable, TEST_MYSQL } from '../support/services';

const storages: Array<[string, () => Promise<TestDatabase | null>]> = [
  ['sqlite', () => openTestDatabase('sqlite')],
  ['mariadb', async () => ((await serviceAvailable('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port)) ? openTestDatabase('mysql') : null)],
];

/** Tables with an account_id column, and those whose rows name the account only in their ids (seeded below). */
const BY_ACCOUNT_ID = ['api_keys', 'webhooks', 'webhook_targets', 'workflows', 'workflow_targets', 'automation_runs', 'events', 'deliveries', 'delivery_attempts', 'sends'];
const BY_ID: Array<[string, string]> = [['send_history', 'send_id'], ['work_items', 'dedup_key'], ['outbox', 'dedup_key']];
const TABLES = ['accounts', ...BY_ACCOUNT_ID, ...BY_ID.map(([table]) => table)];

async function countsOf(db: TypeormDatabase, accountId: number): Promise<Record<string, number>> {
  const count = async (sql: string, params: unknown[] = []) => Number((await db.query<{ n: unknown }>(sql, params))[0].n);
  const out: Record<string, number> = { accounts: await count('SELECT COUNT(*) AS n FROM accounts WHERE id = ?', [accountId]) };
  for (const table of BY_ACCOUNT_ID) out[table] = await count(`SELECT COUNT(*) AS n FROM ${table} WHERE account_id = ?`, [accountId]);
  const mine = new RegExp(`^[a-z]+_${accountId}_`);
  for (const [table, column] of BY_ID) {
    out[table] = (await db.query<{ v: string }>(`SELECT ${column} AS v FROM ${table}`)).filter((row) => mine.test(row.v)).length;
  }
  return out;
}

/** `rows` rows of every kind for the account, through plain SQL (ids embed the account id). */
async function seed(db: TypeormDatabase, accountId: number, rows: number): Promise<void> {
  const now = Date.now();
  const a = accountId;
  for (let i = 0; i < rows; i++) {
    const x = `${a}_${i}`;
    await db.exec('INSERT INTO api_keys (id, account_id, key_hash, hint, created_at) VALUES (?, ?, ?, ?, ?)', [`key_${x}`, a, `hash_${x}`, 'abcd', now]);
    await db.exec("INSERT INTO webhooks (id, account_id, url, events, state, api_version, secret_sealed, created_at, updated_at) VALUES (?, ?, 'https://example.com', '[]', 'enabled', 'v3', 's', ?, ?)", [`wh_${x}`, a, now, now]);
    await db.exec("INSERT INTO webhook_targets (id, account_id, name, url, headers, created_at, updated_at) VALUES (?, ?, 't', 'https://example.com', '{}', ?, ?)", [`tgt_${x}`, a, now, now]);
    await db.exec("INSERT INTO workflows (id, account_id, name, state, definition, trigger_token_hash, created_at, updated_at) VALUES (?, ?, 'w', 'active', '{}', ?, ?, ?)", [`wf_${x}`, a, `tok_${x}`, now, now]);
    await db.exec('INSERT INTO workflow_targets (workflow_id, target_id, account_id) VALUES (?, ?, ?)', [`wf_${x}`, `tgt_${x}`, a]);
    await db.exec("INSERT INTO automation_runs (id, account_id, workflow_id, status, trigger_body, definition, step_states, seq, started_at) VALUES (?, ?, ?, 'running', '{}', '{}', '[]', 3, ?)", [`run_${x}`, a, `wf_${x}`, now]);
    // The same event id in both accounts: only this account's copy may go.
    await db.exec("INSERT INTO events (id, account_id, type, created, received_at, intake_id) VALUES (?, ?, 'email.sent', 1, ?, 'i')", [`evt_${i}`, a, now]);
    for (const d of [0, 1]) {
      await db.exec("INSERT INTO deliveries (id, webhook_id, account_id, event_id, event_type, api_version, status, attempts, seq, created_at) VALUES (?, ?, ?, ?, 'email.sent', 'v3', 'pending', '[]', 2, ?)", [`del_${x}_${d}`, `wh_${x}_${d}`, a, `evt_${i}`, now]);
      await db.exec(
        "INSERT INTO delivery_attempts (delivery_id, attempt_no, webhook_id, account_id, at, duration_ms, http_status, error, response_body) VALUES (?, 1, ?, ?, ?, 5, 500, NULL, '')",
        [`del_${x}_${d}`, `wh_${x}_${d}`, a, now],
      );
    }
    await db.exec("INSERT INTO sends (id, account_id, email, sending_type, status, status_rank, created_at, updated_at) VALUES (?, ?, 'a@example.com', 1, 'sent', 1, ?, ?)", [`msg_${x}`, a, now, now]);
    await db.exec("INSERT INTO send_history (send_id, report_key, status, at, received_at) VALUES (?, 'k', 'sent', ?, ?)", [`msg_${x}`, now, now]);
    const queued: Array<[string, string]> = [[AUTOMATION_STEP_TOPIC, `run_${x}:3`], [DELIVERY_TOPIC, `del_${x}_0:2`], [DELIVERY_TOPIC, `del_${x}_1:2`]];
    for (const [topic, key] of queued) {
      await db.exec('INSERT INTO work_items (id, topic, payload, dedup_key, available_at, created_at) VALUES (?, ?, ?, ?, ?, ?)', [`wrk_${key}`, topic, '{}', key, now, now]);
      await db.exec('INSERT INTO outbox (id, topic, payload, dedup_key, available_at, work_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [`wrk_${key}`, topic, '{}', key, now, `wrk_${key}`, now]);
    }
  }
}

describe.each(storages)('account deletion (%s)', (_name, open) => {
  let storage: TestDatabase | null;
  let accounts: AccountRepository;
  let keys: ApiKeyRepository;

  beforeAll(async () => {
    storage = await open();
    if (!storage) return;
    accounts = new TypeormAccountRepository(storage.db);
    keys = new TypeormApiKeyRepository(storage.db);
  });
  afterAll(async () => storage?.drop());

  it('deletes every row the account owns, in batches, and nothing of another account; its finish deletes what was written late, then the row', async () => {
    if (!storage) return;
    const doomed = await accounts.create('Doomed', new Date());
    const kept = await accounts.create('Kept', new Date());
    await seed(storage.db, doomed.id, 5);
    await seed(storage.db, kept.id, 3);
    const before = await countsOf(storage.db, kept.id);
    expect(Object.values(await countsOf(storage.db, doomed.id)).every((n) => n > 0)).toBe(true);

    const deletedAt = new Date();
    expect(await new TypeormAccountDeletion(storage.db, undefined, 2).delete(doomed.id, deletedAt)).toBe(true);

    // The row stays, invisible, until the deletion is finished.
    expect(await countsOf(storage.db, doomed.id)).toEqual({ ...Object.fromEntries(TABLES.map((table) => [table, 0])), accounts: 1 });
    expect(await accounts.findById(doomed.id)).toBeNull();
    expect(await countsOf(storage.db, kept.id)).toEqual(before);
    expect(await new TypeormAccountDeletion(storage.db).delete(doomed.id, new Date())).toBe(false);

    // What a request authenticated from another process's key cache wrote after the passes: its
    // trigger URL answers nothing at once, and the finish deletes it.
    await seed(storage.db, doomed.id, 2);
    const workflows = new TypeormWorkflowRepository(storage.db);
    expect(await workflows.findActiveByTriggerTokenHashes([`tok_${doomed.id}_0`, `tok_${kept.id}_0`])).toEqual([null, expect.objectContaining({ accountId: kept.id })]);
    const deletion = new TypeormAccountDeletion(storage.db, undefined, 2);
    expect(await deletion.finishDeletions(new Date(deletedAt.getTime() - 1))).toBe(0);
    expect((await countsOf(storage.db, doomed.id)).webhooks).toBe(2);
    expect(await deletion.finishDeletions(deletedAt)).toBe(1);
    expect(await countsOf(storage.db, doomed.id)).toEqual(Object.fromEntries(TABLES.map((table) => [table, 0])));
    expect(await countsOf(storage.db, kept.id)).toEqual(before);
    expect(await deletion.finishDeletions(new Date())).toBe(0);
  });

  it('hides an account from the start of its deletion, and its finish ends an interrupted one', async () => {
    if (!storage) return;
    const account = await accounts.create('Interrupted', new Date());
    await seed(storage.db, account.id, 2);
    const failing = [{ table: 'api_keys', key: 'id', owner: 'account' as const }, { table: 'no_such_table', key: 'id', owner: 'account' as const }];
    await expect(new TypeormAccountDeletion(storage.db, failing).delete(account.id, new Date())).rejects.toThrow();

    expect(await accounts.findById(account.id)).toBeNull();
    expect((await accounts.list(0, 100)).map((a) => a.id)).not.toContain(account.id);
    expect(await keys.findActiveByHash(`hash_${account.id}_0`)).toBeNull();

    expect(await new TypeormAccountDeletion(storage.db).delete(account.id, new Date())).toBe(false);
    expect(await new TypeormAccountDeletion(storage.db).finishDeletions(new Date())).toBeGreaterThanOrEqual(1);
    expect(Object.values(await countsOf(storage.db, account.id)).every((n) => n === 0)).toBe(true);
  });

  it('lists accounts oldest first after an id, and active keys with their last use written at most once per interval', async () => {
    if (!storage) return;
    const first = await accounts.create('First', new Date());
    const second = await accounts.create('Second', new Date());
    expect((await accounts.list(first.id - 1, 2)).map((a) => a.id)).toEqual([first.id, second.id]);
    expect((await accounts.list(first.id, 1)).map((a) => a.id)).toEqual([second.id]);

    const created = new Date('2026-01-01T00:00:00.000Z');
    await keys.insert({ id: `key_a${first.id}`, accountId: first.id, keyHash: `h_a${first.id}`, hint: 'abcd', prefix: 'sk_abcde', createdAt: created, revokedAt: null, lastUsedAt: null });
    await keys.insert({ id: `key_b${first.id}`, accountId: first.id, keyHash: `h_b${first.id}`, hint: 'abcd', prefix: null, createdAt: created, revokedAt: created, lastUsedAt: null });
    const t0 = new Date('2026-01-02T00:00:00.000Z');
    await keys.recordUse(`key_a${first.id}`, t0, new Date(t0.getTime() - 60_000));
    // 30 s later, with a use recorded after `unlessAfter`: no write.
    await keys.recordUse(`key_a${first.id}`, new Date(t0.getTime() + 30_000), new Date(t0.getTime() - 30_000));
    expect(await keys.listActive(first.id)).toEqual([expect.objectContaining({ id: `key_a${first.id}`, prefix: 'sk_abcde', createdAt: created, lastUsedAt: t0 })]);
    await keys.recordUse(`key_a${first.id}`, new Date(t0.getTime() + 60_000), t0);
    expect((await keys.listActive(first.id))[0].lastUsedAt).toEqual(new Date(t0.getTime() + 60_000));
  });
});
