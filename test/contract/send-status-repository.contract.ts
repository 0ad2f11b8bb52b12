import { randomBytes } from 'node:crypto';
import { JobLease, newId, NewEvent, EventPublisher, SystemClock } from '../../libs/kernel/src';
import { AccountRepository } from '../../libs/accounts/src';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { TypeormUnitOfWork } from '../../libs/adapters/sql/src/typeorm-unit-of-work';
import { TypeormSendRepository } from '../../libs/adapters/sql/src/send-status/typeorm-send.repository';
import { TypeormJobLease } from '../../libs/adapters/sql/src/job-lease/typeorm-job-lease';
import { TypeormAccountRepository } from '../../libs/adapters/sql/src/accounts/typeorm-account.repository';
import { NewSend, SendRepository, SendStatusService, statusRank } from '../../libs/send-status/src';
import { InMemoryJobLease } from '../../libs/kernel/src/testing/kernel-fakes';

export interface SendStorageHandle {
  /** The database of the SQL adapter; null when `repository` is a fake. */
  db: TypeormDatabase | null;
  /** The repository under test; default the SQL adapter on `db`. */
  repository?: SendRepository;
  /** A second, independent connection to the same database (another process, in effect). */
  openSecond(): Promise<TypeormDatabase>;
  close(): Promise<void>;
}

/** Records published events (the real intake is tested by event-webhooks); ids accepted once. */
class RecordingPublisher extends EventPublisher {
  readonly events: NewEvent[] = [];
  async publish(events: NewEvent[]): Promise<string[]> {
    for (const e of events) if (!this.events.some((x) => x.id === e.id)) this.events.push(e);
    return events.map((e) => e.id!);
  }
}

const DAY = 86_400_000;

/**
 * The storage contract of send status and job leases, run by send-status-repository.int-spec.ts
 * against the in-memory fakes and every database the TypeORM adapter supports (SQLite and
 * MariaDB); the cases about concurrent connections and the stored rows run on the databases only.
 */
export function describeSendRepositoryContract(name: string, open: () => Promise<SendStorageHandle | null>): void {
  describe(`send-status storage (${name})`, () => {
    let handle: SendStorageHandle | null;
    let sut: SendRepository;
    const tx = <T>(work: () => Promise<T>): Promise<T> => (handle?.db ? handle.db.transaction(work) : work());
    const findOne = async (accountId: number, id: string) => (await sut.findForAccounts([{ accountId, id }]))[0];

    beforeAll(async () => {
      handle = await open();
      if (handle) sut = handle.repository ?? new TypeormSendRepository(handle.db!);
    });
    afterAll(async () => {
      await handle?.close();
    });

    const send = (extra: Partial<NewSend> = {}): NewSend => {
      const createdAt = extra.createdAt ?? new Date();
      return {
        id: newId('msg', createdAt.getTime()),
        accountId: 1,
        email: 'jane@example.com',
        sendingType: 1,
        status: 'queued',
        diagCode: null,
        bounceType: null,
        scheduledAt: null,
        createdAt,
        updatedAt: createdAt,
        ...extra,
      };
    };
    const entry = (sendId: string, status: NewSend['status'], atMs: number, key: string, diagCode: string | null = null) => ({
      sendId,
      reportKey: key,
      status,
      at: new Date(atMs),
      diagCode,
      bounceType: null,
      receivedAt: new Date(),
    });

    it('hands out distinct idSending values, also to concurrent inserts from two connections', async () => {
      if (!handle?.db) return;
      const second = new TypeormSendRepository(await handle.openSecond());
      const ids = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? sut : second).insert(send())));
      expect(new Set(ids).size).toBe(60);
      expect(ids.every((id) => Number.isSafeInteger(id) && id > 0)).toBe(true);
    });

    it('reads a send back for its account only, with its history in time order, matching the id exactly', async () => {
      if (!handle) return;
      const record = send({ scheduledAt: new Date('2030-01-01T00:00:00Z'), status: 'scheduled' });
      const idSending = await sut.insert(record);
      const t = record.createdAt.getTime();
      await sut.appendHistory([entry(record.id, 'delivered', t + 3000, 'k3', '250 OK'), entry(record.id, 'scheduled', t, 'k1'), entry(record.id, 'sent', t + 1000, 'k2')]);
      const found = await findOne(1, record.id);
      expect(found).toEqual({
        ...record,
        idSending,
        history: [
          { status: 'scheduled', at: new Date(t), diagCode: null, bounceType: null },
          { status: 'sent', at: new Date(t + 1000), diagCode: null, bounceType: null },
          { status: 'delivered', at: new Date(t + 3000), diagCode: '250 OK', bounceType: null },
        ],
      });
      expect(await findOne(2, record.id)).toBeNull();
      expect(await findOne(1, record.id.toUpperCase())).toBeNull();
      expect(await findOne(1, `${record.id} `)).toBeNull();
      expect(await findOne(1, "msg_' OR '1'='1")).toBeNull();
      expect(await findOne(1, '\u{1F600}'.repeat(100))).toBeNull();
    });

    it('answers many lookups in one call, in their order: repeats, unknown ids and other accounts alike', async () => {
      if (!handle) return;
      const mine = send();
      const theirs = { ...send(), accountId: 2 };
      await sut.insert(mine);
      await sut.insert(theirs);
      await sut.appendHistory([entry(mine.id, 'sent', mine.createdAt.getTime() + 1000, 'k-many')]);
      const found = await sut.findForAccounts([
        { accountId: 1, id: mine.id },
        { accountId: 1, id: theirs.id },
        { accountId: 2, id: theirs.id },
        { accountId: 1, id: 'msg_unknown' },
        { accountId: 1, id: mine.id },
        { accountId: 2, id: mine.id },
      ]);
      expect(found.map((f) => f?.id ?? null)).toEqual([mine.id, null, theirs.id, null, mine.id, null]);
      expect(found[0]!.history.map((h) => h.status)).toEqual(['sent']);
      expect(found[2]!.history).toEqual([]);
      expect(await sut.findForAccounts([])).toEqual([]);
    });

    it('keeps a repeated report once, within one call and across calls', async () => {
      if (!handle) return;
      const record = send();
      await sut.insert(record);
      const t = Date.now();
      await sut.appendHistory([entry(record.id, 'sent', t, 'same'), entry(record.id, 'sent', t, 'same')]);
      await sut.appendHistory([entry(record.id, 'sent', t, 'same'), entry(record.id, 'deferred', t, 'other')]);
      expect((await findOne(1, record.id))!.history.map((h) => h.status)).toEqual(['sent', 'deferred']);
    });

    it('moves a status forward only', async () => {
      if (!handle) return;
      const record = send();
      const idSending = await sut.insert(record);
      const at = new Date();
      expect(await sut.moveForward({ idSending, status: 'sent', diagCode: null, bounceType: null, updatedAt: at })).toBe(true);
      expect(await sut.moveForward({ idSending, status: 'queued', diagCode: null, bounceType: null, updatedAt: at })).toBe(false);
      expect(await sut.moveForward({ idSending, status: 'sent', diagCode: null, bounceType: null, updatedAt: at })).toBe(false);
      expect(await sut.moveForward({ idSending, status: 'bounced', diagCode: '550 no such user', bounceType: 'hard', updatedAt: at })).toBe(true);
      expect(await sut.moveForward({ idSending, status: 'delivered', diagCode: '250', bounceType: null, updatedAt: at })).toBe(false);
      expect(await findOne(1, record.id)).toMatchObject({ status: 'bounced', diagCode: '550 no such user', bounceType: 'hard', updatedAt: at });
      const locked = await sut.lockForReports([record.id, 'msg_unknown']);
      expect(locked).toEqual([{ id: record.id, idSending, accountId: 1, email: 'jane@example.com', sendingType: 1, status: 'bounced', diagCode: '550 no such user', bounceType: 'hard', createdAt: record.createdAt }]);
      expect(statusRank(locked[0].status)).toBe(4);
    });

    it('deletes in bounded batches the sends created before the cutoff, with their history', async () => {
      if (!handle) return;
      const now = Date.now();
      const cutoff = new Date(now - 365 * DAY);
      const old = Array.from({ length: 5 }, () => send({ createdAt: new Date(now - 366 * DAY) }));
      const young = send({ createdAt: new Date(now - 364 * DAY) });
      for (const s of [...old, young]) {
        await sut.insert(s);
        await sut.appendHistory([entry(s.id, 'queued', s.createdAt.getTime(), 'k')]);
      }
      // Earlier tests' sends are young too; only these five are old.
      expect(await tx(() => sut.deleteCreatedBefore(cutoff, 2))).toBe(2);
      expect(await tx(() => sut.deleteCreatedBefore(cutoff, 2))).toBe(2);
      expect(await tx(() => sut.deleteCreatedBefore(cutoff, 2))).toBe(1);
      expect(await sut.deleteCreatedBefore(cutoff, 2)).toBe(0);
      for (const s of old) expect(await findOne(1, s.id)).toBeNull();
      expect(await findOne(1, young.id)).not.toBeNull();
      if (!handle.db) return;
      const [{ n }] = await handle.db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM send_history WHERE send_id IN (${old.map(() => '?').join(', ')})`, old.map((s) => s.id));
      expect(Number(n)).toBe(0);
    });

    it('applies concurrent reports of one send to the right final state with one final event', async () => {
      if (!handle?.db) return;
      const accounts: AccountRepository = new TypeormAccountRepository(handle.db);
      const account = await accounts.create(`Acme ${randomBytes(3).toString('hex')}`, new Date());
      const publisher = new RecordingPublisher();
      const service = new SendStatusService(sut, accounts, publisher, new TypeormUnitOfWork(handle.db), new SystemClock());
      const second = await handle.openSecond();
      const other = new SendStatusService(new TypeormSendRepository(second), accounts, publisher, new TypeormUnitOfWork(second), new SystemClock());
      for (let round = 0; round < 3; round++) {
        const { id, idSending } = await service.createSend({ accountId: account.id, email: 'race@example.com', channel: 'smtp' });
        // Distinct times after the creation (an earlier one would be dated at the creation), within the 5 minutes ahead allowed.
        const start = Date.now() + 1_000;
        const at = (minute: number, second: number) => new Date(start + minute * 60_000 + second * 1_000).toISOString();
        const reports = [
          ...Array.from({ length: 15 }, (_, i) => ({ status: 'sent', at: at(0, i) })),
          ...Array.from({ length: 15 }, (_, i) => ({ status: 'deferred', diagCode: `451 ${i}`, at: at(1, i) })),
          ...Array.from({ length: 10 }, (_, i) => ({ status: 'delivered', diagCode: `250 ${i}`, at: at(2, i) })),
          ...Array.from({ length: 10 }, (_, i) => ({ status: 'bounced', bounceType: 'soft', at: at(3, i) })),
        ].sort(() => Math.random() - 0.5);
        await Promise.all(reports.map((r, i) => (i % 2 ? service : other).report(id, r)));
        const found = (await service.lookup(account.id, id))!;
        expect(['delivered', 'bounced']).toContain(found.status);
        expect(found.history).toHaveLength(51);
        const finals = publisher.events.filter((e) => e.type !== 'email.processed' && (e.data as { idSending: number }).idSending === idSending);
        expect(finals).toEqual([expect.objectContaining({ type: `email.${found.status}` })]);
        // the event carries the report that moved the send, which is the one the record shows
        expect((finals[0].data as { diagCode: string | null }).diagCode).toBe(found.diagCode);
      }
    });

    describe('job lease', () => {
      let lease: JobLease;
      beforeAll(() => {
        if (handle) lease = handle.db ? new TypeormJobLease(handle.db) : new InMemoryJobLease();
      });
      const name = () => `test-${randomBytes(4).toString('hex')}`;

      it('is held by one holder at a time, renewable, and free again once released or expired', async () => {
        if (!handle) return;
        const job = name();
        const t = new Date();
        expect(await lease.acquire(job, 'a', t, 60_000)).toBe(true);
        expect(await lease.acquire(job, 'b', t, 60_000)).toBe(false);
        expect(await lease.acquire(job, 'a', t, 60_000)).toBe(true);
        expect(await lease.acquire(job, 'b', new Date(t.getTime() + 59_999), 60_000)).toBe(false);
        expect(await lease.acquire(job, 'b', new Date(t.getTime() + 60_000), 60_000)).toBe(true);
        await lease.release(job, 'a');
        expect(await lease.acquire(job, 'a', new Date(t.getTime() + 60_001), 60_000)).toBe(false);
        await lease.release(job, 'b');
        expect(await lease.acquire(job, 'a', new Date(t.getTime() + 60_002), 60_000)).toBe(true);
      });

      it('lets exactly one of many concurrent contenders win, across connections', async () => {
        if (!handle?.db) return;
        const job = name();
        const other = new TypeormJobLease(await handle.openSecond());
        const t = new Date();
        const wins = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? lease : other).acquire(job, `holder-${i}`, t, 60_000)));
        expect(wins.filter(Boolean)).toHaveLength(1);
      });
    });
  });
}
