import { ReceivedWork, WorkItem, WorkOutcome, WorkQueue } from '../../libs/kernel/src';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { deferred, sleep, waitFor, within } from '../support/waiting';

/** One queue as a process would hold it: its own database connection (and NATS connection). */
export interface QueueProcess {
  queue: WorkQueue;
  /** The connection this process enqueues through (its transactions carry the enqueue). */
  db: TypeormDatabase;
  /** The process dies: its connections drop, nothing is stopped, acked or released. */
  crash(): Promise<void>;
  /** Orderly end of the test: close the queue and the connections. */
  close(): Promise<void>;
}

export interface QueueHarness {
  /** Starts one more process on the shared database (and stream). */
  startProcess(): Promise<QueueProcess>;
  /** Lease (database queue) or ack wait (NATS) the processes use: how long a dead worker keeps an item. */
  holdMs: number;
  dispose(): Promise<void>;
}

const done: WorkOutcome = { kind: 'done' };
let topicCounter = 0;

/** Every test works on a topic of its own, so tests sharing a database never see each other's items. */
function uniqueTopic(): string {
  return `c${Date.now().toString(36)}_${topicCounter++}`;
}

const never = () => new Promise<WorkOutcome>(() => undefined);

/**
 * The behaviour every WorkQueue adapter promises (libs/kernel/src/work-queue.ts), run against
 * real servers. Timing knobs (lease, ack wait, poll) come from the harness, kept short.
 */
export function describeWorkQueueContract(name: string, makeHarness: () => Promise<QueueHarness>, options: { skip?: boolean } = {}): void {
  (options.skip ? describe.skip : describe)(`WorkQueue contract: ${name}`, () => {
    jest.setTimeout(30_000);
    let harness: QueueHarness;
    const processes: QueueProcess[] = [];

    const start = async () => {
      const process = await harness.startProcess();
      processes.push(process);
      return process;
    };

    const enqueueIn = (p: QueueProcess, items: WorkItem[]) => p.db.transaction(() => p.queue.enqueue(items));

    beforeAll(async () => {
      harness = await makeHarness();
    });

    afterEach(async () => {
      for (const process of processes.splice(0)) await process.close();
    });

    afterAll(async () => {
      await harness?.dispose();
    });

    it('answers ping', async () => {
      const p = await start();
      await expect(p.queue.ping()).resolves.toBeUndefined();
    });

    it('hands over every item at least once, none lost', async () => {
      const p = await start();
      const topic = uniqueTopic();
      const seen = new Map<number, number>();
      const sub = await p.queue.consume(
        topic,
        async (work) => {
          const n = Number(work.payload.n);
          seen.set(n, (seen.get(n) ?? 0) + 1);
          return done;
        },
        { concurrency: 16 },
      );
      const total = 300;
      for (let batch = 0; batch < total / 30; batch++) {
        const items = Array.from({ length: 30 }, (_, i) => ({ topic, payload: { n: batch * 30 + i } }));
        // Most batches inside a transaction (the normal path), one outside any.
        if (batch === 3) await p.queue.enqueue(items);
        else await enqueueIn(p, items);
      }
      await waitFor(`${total} items`, () => seen.size === total, 15_000);
      await sub.stop(1_000);
      expect([...seen.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i));
    });

    it('hands nothing over from a transaction that rolled back', async () => {
      const p = await start();
      const topic = uniqueTopic();
      const seen: unknown[] = [];
      await p.queue.consume(topic, async (work) => (seen.push(work.payload.v), done), { concurrency: 4 });
      await expect(
        p.db.transaction(async () => {
          await p.queue.enqueue([{ topic, payload: { v: 'rolled back' } }]);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      await enqueueIn(p, [{ topic, payload: { v: 'kept' } }]);
      await waitFor('the committed item', () => seen.length >= 1, 5_000);
      await sleep(300);
      expect(seen).toEqual(['kept']);
    });

    it('does not hand over a delayed item before runAt', async () => {
      const p = await start();
      const topic = uniqueTopic();
      const received = new Map<string, number>();
      await p.queue.consume(topic, async (work) => (received.set(String(work.payload.v), Date.now()), done), { concurrency: 4 });
      const runAt = new Date(Date.now() + 600);
      await enqueueIn(p, [
        { topic, payload: { v: 'later' }, runAt },
        { topic, payload: { v: 'now' } },
      ]);
      await waitFor('the immediate item', () => received.has('now'), 3_000);
      expect(received.has('later')).toBe(false);
      await waitFor('the delayed item', () => received.has('later'), 5_000);
      expect(received.get('later')!).toBeGreaterThanOrEqual(runAt.getTime());
      expect(received.get('later')! - runAt.getTime()).toBeLessThan(1_500);
    });

    it('tells when its oldest item not yet handed over became due; items handed over no longer count', async () => {
      const p = await start();
      const topic = uniqueTopic();
      expect(await p.queue.oldestWaiting(topic)).toBeNull();
      const dueAt = new Date(Date.now() - 5_000);
      await enqueueIn(p, [
        { topic, payload: { v: 'overdue' }, runAt: dueAt },
        { topic, payload: { v: 'now' } },
        { topic, payload: { v: 'later' }, runAt: new Date(Date.now() + 60_000) },
      ]);
      // waiting since it was due, or (NATS) since the stream took it: a time already past
      const overdue = async () => {
        const since = (await p.queue.oldestWaiting(topic))?.getTime() ?? Infinity;
        return since >= dueAt.getTime() && since <= Date.now();
      };
      await waitFor('the overdue item reported waiting', overdue, 3_000);
      const held = new Set<string>();
      await p.queue.consume(topic, (work) => (held.add(String(work.payload.v)), never()), { concurrency: 4 });
      await waitFor('both due items handed over', () => held.size === 2, 5_000);
      // what still waits is the delayed item, or (database queue) the lease of an item being worked on: nothing overdue
      await waitFor('no overdue item waiting', async () => !(await overdue()), 5_000);
    });

    it('hands over items flagged sweptBackIfLost like any other: due or delayed, inside a transaction or not, none rolled back', async () => {
      const p = await start();
      const topic = uniqueTopic();
      const received = new Map<string, number>();
      await p.queue.consume(topic, async (work) => (received.set(String(work.payload.v), Date.now()), done), { concurrency: 8 });
      const runAt = new Date(Date.now() + 600);
      await enqueueIn(p, [
        { topic, payload: { v: 'now' }, sweptBackIfLost: true },
        { topic, payload: { v: 'keyed' }, key: 'k1', sweptBackIfLost: true },
        { topic, payload: { v: 'later' }, runAt, sweptBackIfLost: true },
      ]);
      await p.queue.enqueue([{ topic, payload: { v: 'outside' }, sweptBackIfLost: true }]);
      await expect(
        p.db.transaction(async () => {
          await p.queue.enqueue([{ topic, payload: { v: 'rolled back' }, sweptBackIfLost: true }]);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      await waitFor('the due items', () => ['now', 'keyed', 'outside'].every((v) => received.has(v)), 3_000);
      expect(received.has('later')).toBe(false);
      await waitFor('the delayed item', () => received.has('later'), 5_000);
      expect(received.get('later')!).toBeGreaterThanOrEqual(runAt.getTime());
      await sleep(300);
      expect([...received.keys()].sort()).toEqual(['keyed', 'later', 'now', 'outside']);
    });

    it('hands an item over again once the worker holding it died', async () => {
      const a = await start();
      const b = await start();
      const topic = uniqueTopic();
      const gotByA = deferred<ReceivedWork>();
      await a.queue.consume(topic, (work) => (gotByA.resolve(work), never()), { concurrency: 1 });
      await enqueueIn(a, [{ topic, payload: { v: 1 } }]);
      const first = await within('the first hand-over', gotByA.promise, 5_000);
      const diedAt = Date.now();
      await a.crash();
      const gotByB = deferred<{ work: ReceivedWork; at: number }>();
      await b.queue.consume(topic, async (work) => (gotByB.resolve({ work, at: Date.now() }), done), { concurrency: 1 });
      const second = await within('the hand-over after the crash', gotByB.promise, harness.holdMs * 3 + 5_000);
      expect(second.work.id).toBe(first.id);
      expect(second.work.payload).toEqual({ v: 1 });
      expect(second.work.deliveryCount).toBeGreaterThanOrEqual(2);
      // Not before the dead worker's hold ran out (it is not released, it expires).
      expect(second.at - diedAt).toBeGreaterThanOrEqual(harness.holdMs * 0.5);
    });

    it('hands over again every item a crash left unfinished among items handed over together', async () => {
      const a = await start();
      const b = await start();
      const topic = uniqueTopic();
      const total = 40;
      const finishedByA = new Set<number>();
      // Even items finish at once, odd ones hang until the process dies.
      await a.queue.consume(topic, async (work) => (Number(work.payload.n) % 2 === 0 ? (finishedByA.add(Number(work.payload.n)), done) : never()), {
        concurrency: total,
      });
      await enqueueIn(
        a,
        Array.from({ length: total }, (_, n) => ({ topic, payload: { n }, sweptBackIfLost: true })),
      );
      await waitFor('the even items finished by the first process', () => finishedByA.size === total / 2, 10_000);
      await a.crash();
      const seenByB = new Set<number>();
      await b.queue.consume(topic, async (work) => (seenByB.add(Number(work.payload.n)), done), { concurrency: total });
      const odd = Array.from({ length: total / 2 }, (_, i) => 2 * i + 1);
      await waitFor('every unfinished item handed over again', () => odd.every((n) => seenByB.has(n)), harness.holdMs * 3 + 10_000);
    });

    it('never lets two processes hold the same item at once within its lease', async () => {
      const a = await start();
      const b = await start();
      const topic = uniqueTopic();
      const holding = new Map<string, number>();
      const finished = new Set<number>();
      const perProcess = [0, 0];
      let overlaps = 0;
      const handler = (index: number) => async (work: ReceivedWork) => {
        // A hand-over after the lease ran out (deliveryCount > 1: the holder stalled past it, as a
        // loaded machine can make it) is at-least-once at work; a second first hand-over is not.
        if (holding.has(work.id) && work.deliveryCount === 1) overlaps++;
        holding.set(work.id, (holding.get(work.id) ?? 0) + 1);
        perProcess[index]++;
        await sleep(Math.random() * 15);
        if (holding.get(work.id) === 1) holding.delete(work.id);
        else holding.set(work.id, holding.get(work.id)! - 1);
        finished.add(Number(work.payload.n));
        return done;
      };
      await a.queue.consume(topic, handler(0), { concurrency: 8 });
      await b.queue.consume(topic, handler(1), { concurrency: 8 });
      const total = 200;
      for (let batch = 0; batch < total / 20; batch++) {
        await enqueueIn(batch % 2 ? b : a, Array.from({ length: 20 }, (_, i) => ({ topic, payload: { n: batch * 20 + i } })));
      }
      await waitFor(`${total} items`, () => finished.size === total, 20_000);
      expect(overlaps).toBe(0);
      expect(perProcess[0]).toBeGreaterThan(0);
      expect(perProcess[1]).toBeGreaterThan(0);
    });

    it('never has more than `concurrency` items in flight', async () => {
      const p = await start();
      const topic = uniqueTopic();
      let current = 0;
      let peak = 0;
      let finished = 0;
      await enqueueIn(p, Array.from({ length: 24 }, (_, n) => ({ topic, payload: { n } })));
      await p.queue.consume(
        topic,
        async () => {
          current++;
          peak = Math.max(peak, current);
          await sleep(30);
          current--;
          finished++;
          return done;
        },
        { concurrency: 3 },
      );
      await waitFor('24 items', () => finished === 24, 10_000);
      expect(peak).toBe(3);
    });

    it('hands an item over again after retry(at), not before', async () => {
      const p = await start();
      const topic = uniqueTopic();
      const deliveries: Array<{ work: ReceivedWork; at: number }> = [];
      let retryAt = 0;
      await p.queue.consume(
        topic,
        async (work) => {
          deliveries.push({ work, at: Date.now() });
          if (deliveries.length > 1) return done;
          retryAt = Date.now() + 500;
          return { kind: 'retry', at: new Date(retryAt) };
        },
        { concurrency: 2 },
      );
      await enqueueIn(p, [{ topic, payload: { v: 'again' } }]);
      await waitFor('the second delivery', () => deliveries.length >= 2, 5_000);
      await sleep(300);
      expect(deliveries).toHaveLength(2);
      const [first, second] = deliveries;
      expect(second.at).toBeGreaterThanOrEqual(retryAt);
      expect(second.work.id).toBe(first.work.id);
      expect(second.work.payload).toEqual({ v: 'again' });
      expect(first.work.deliveryCount).toBe(1);
      expect(second.work.deliveryCount).toBe(2);
    });

    it('hands back, each at its own time, many items that asked for a retry together (stored in batches)', async () => {
      const p = await start();
      const topic = uniqueTopic();
      const asked = new Map<number, number>();
      const again = new Map<number, { at: number; deliveryCount: number }>();
      await p.queue.consume(
        topic,
        async (work) => {
          const n = (work.payload as { n: number }).n;
          if (!asked.has(n)) {
            const at = Date.now() + 300 + 10 * (n % 40);
            asked.set(n, at);
            return { kind: 'retry', at: new Date(at) };
          }
          again.set(n, { at: Date.now(), deliveryCount: work.deliveryCount });
          return done;
        },
        { concurrency: 200 },
      );
      await enqueueIn(
        p,
        Array.from({ length: 200 }, (_, n) => ({ topic, payload: { n } })),
      );
      await waitFor('200 items back', () => again.size === 200, 15_000);
      for (const [n, back] of again) {
        expect(back.at).toBeGreaterThanOrEqual(asked.get(n)!);
        expect(back.deliveryCount).toBe(2);
      }
    });

    it('hands an item over again after its handler threw', async () => {
      const p = await start();
      const topic = uniqueTopic();
      const deliveries: ReceivedWork[] = [];
      await p.queue.consume(
        topic,
        async (work) => {
          deliveries.push(work);
          if (deliveries.length === 1) throw new Error('receiver exploded');
          return done;
        },
        { concurrency: 1 },
      );
      await enqueueIn(p, [{ topic, payload: { v: 1 } }]);
      await waitFor('the delivery after the failure', () => deliveries.length >= 2, 5_000);
      expect(deliveries[1].id).toBe(deliveries[0].id);
      expect(deliveries[1].deliveryCount).toBe(2);
    });

    it('gives an item up after maxHandlerFailures exceptions, counting only the throws, and never retries it again', async () => {
      const p = await start();
      const topic = uniqueTopic();
      const seen: ReceivedWork[] = [];
      const givenUp: Array<{ work: ReceivedWork; reason: string }> = [];
      const postponed: Array<{ failures: number; at: number; told: number }> = [];
      const seenAt: number[] = [];
      let early = true;
      await p.queue.consume(
        topic,
        async (work) => {
          seen.push(work);
          seenAt.push(Date.now());
          // one ordinary retry first: it does not count as a failure
          if (early) {
            early = false;
            return { kind: 'retry', at: new Date(Date.now() + 20) };
          }
          throw new RangeError(`poison ${seen.length}`);
        },
        {
          concurrency: 2,
          maxHandlerFailures: 3,
          giveUp: async (work, reason) => void givenUp.push({ work, reason }),
          postpone: async (work, at) => void postponed.push({ failures: work.failures, at: at.getTime(), told: Date.now() }),
        },
      );
      await enqueueIn(p, [{ topic, payload: { v: 'poison' } }]);
      await waitFor('the item given up', () => givenUp.length === 1, 10_000);
      await sleep(600);
      expect(seen.map((w) => w.failures)).toEqual([0, 0, 1, 2]);
      // Each failure that is retried says when the item comes back, and it does not come back earlier.
      expect(postponed.map((p) => p.failures)).toEqual([0, 1]);
      postponed.forEach((p, i) => {
        expect(p.at).toBeGreaterThan(p.told);
        expect(seenAt[i + 2]).toBeGreaterThanOrEqual(p.at - 5);
      });
      expect(givenUp[0].work).toMatchObject({ payload: { v: 'poison' }, failures: 2 });
      expect(givenUp[0].reason).toBe('poison 4');
      expect(seen).toHaveLength(4);
    });

    it('stores an item once per dedup key while it waits', async () => {
      const p = await start();
      const topic = uniqueTopic();
      const later = new Date(Date.now() + 400);
      await p.db.transaction(async () => {
        await p.queue.enqueue([{ topic, payload: { v: 'a' }, key: 'k1' }]);
        await p.queue.enqueue([
          { topic, payload: { v: 'b' }, key: 'k1' },
          { topic, payload: { v: 'c' }, key: 'k2' },
          { topic, payload: { v: 'c2' }, key: 'k2' },
        ]);
      });
      await p.queue.enqueue([{ topic, payload: { v: 'd' }, key: 'k3', runAt: later }]);
      await p.queue.enqueue([{ topic, payload: { v: 'e' }, key: 'k3', runAt: later }]);
      const seen: string[] = [];
      await p.queue.consume(topic, async (work) => (seen.push(String(work.payload.v)), done), { concurrency: 4 });
      await waitFor('three items', () => seen.length >= 3, 5_000);
      await sleep(500);
      expect(seen.sort()).toEqual(['a', 'c', 'd']);
    });

    it('stop() lets in-flight work finish within the grace period', async () => {
      const a = await start();
      const topic = uniqueTopic();
      const received = deferred();
      let finished = false;
      const sub = await a.queue.consume(
        topic,
        async () => {
          received.resolve();
          await sleep(150);
          finished = true;
          return done;
        },
        { concurrency: 2 },
      );
      await enqueueIn(a, [{ topic, payload: { v: 1 } }]);
      await within('the hand-over', received.promise, 5_000);
      await sub.stop(3_000);
      expect(finished).toBe(true);
      const b = await start();
      const again: ReceivedWork[] = [];
      await b.queue.consume(topic, async (work) => (again.push(work), done), { concurrency: 2 });
      await sleep(harness.holdMs + 500);
      expect(again).toEqual([]);
    });

    it('stop() releases in-flight work it cannot finish, for others to take at once', async () => {
      const a = await start();
      const topic = uniqueTopic();
      const gotByA = deferred<ReceivedWork>();
      const sub = await a.queue.consume(topic, (work) => (gotByA.resolve(work), never()), { concurrency: 2 });
      await enqueueIn(a, [{ topic, payload: { v: 1 } }]);
      const first = await within('the hand-over', gotByA.promise, 5_000);
      const stopping = Date.now();
      await sub.stop(100);
      const stopped = Date.now();
      expect(stopped - stopping).toBeLessThan(1_000);
      const b = await start();
      const gotByB = deferred<{ work: ReceivedWork; at: number }>();
      await b.queue.consume(topic, async (work) => (gotByB.resolve({ work, at: Date.now() }), done), { concurrency: 2 });
      const second = await within('the released item', gotByB.promise, harness.holdMs * 3 + 3_000);
      expect(second.work.id).toBe(first.id);
      // Released, not left to expire.
      expect(second.at - stopped).toBeLessThan(harness.holdMs / 2);
    });

    it('picks up new work within a poll or two when idle', async () => {
      const a = await start();
      const b = await start();
      const sameTopic = uniqueTopic();
      const otherTopic = uniqueTopic();
      const arrivals = new Map<string, number>();
      const record = async (work: ReceivedWork) => (arrivals.set(String(work.payload.v), Date.now()), done);
      await a.queue.consume(sameTopic, record, { concurrency: 4 });
      await b.queue.consume(otherTopic, record, { concurrency: 4 });
      await sleep(300);
      const same: number[] = [];
      const other: number[] = [];
      for (let i = 0; i < 10; i++) {
        for (const [topic, into] of [
          [sameTopic, same],
          [otherTopic, other],
        ] as const) {
          const v = `${topic}-${i}`;
          const sent = Date.now();
          await enqueueIn(a, [{ topic, payload: { v } }]);
          await waitFor(v, () => arrivals.has(v), 3_000);
          into.push(arrivals.get(v)! - sent);
          await sleep(Math.random() * 50);
        }
      }
      const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
      console.log(`${name}: idle pickup latency in ms, same process [${same.join(', ')}] (median ${median(same)}), other process [${other.join(', ')}] (median ${median(other)})`);
      // The database queue polls every 80 ms for other processes' work: 100 ms held on the earlier
      // machines, but a machine three times slower measured a median of 124 ms (MariaDB, other
      // process), so the bound is two and a half polls; a pick-up that waited for a long poll or a
      // lease would take seconds.
      expect(median(same)).toBeLessThanOrEqual(200);
      expect(median(other)).toBeLessThanOrEqual(200);
      // All but the slowest: one stall of the whole test process (CI saw 759 ms once, in the same
      // process) is not the slow pick-up looked for.
      expect([...other].sort((x, y) => x - y)[other.length - 2]).toBeLessThan(500);
    });
  });
}
