import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../libs/kernel/src/secret-box';
import { deleteTestStream } from '../support/nats';
import { requireService, TEST_MYSQL, TEST_NATS } from '../support/services';
import { CaseRun, deliveredWithout202, EVENTS_PER_CASE, firstArrivalAfter, ms, seconds, sleep } from './case-run';
import { assertBuilt, FaultStack, OTHER_EVENT_TYPE } from './fault-stack';

/**
 * Issues 7 and 12: the deployment as separate processes (API + 2 dispatchers on the shared
 * MariaDB and NATS JetStream) under faults. Every event answered 202 must reach all 5 webhooks:
 * lost pairs 0, duplicates reported (under 5%). One stack serves the cases one after another;
 * each case counts only the events it published. The poison case runs after every case that
 * restarts a process: it leaves a webhook whose secret no key opens.
 */
const OUTAGE_MS = 5_000;
/**
 * Longer than a request can wait: up to 10 s for its turn to commit (GROUP_COMMIT_WAIT_LIMIT_MS),
 * then up to DATABASE_STATEMENT_TIMEOUT (10 s) on a statement. Requests that arrive during the stall
 * must give up before it ends.
 */
const STALL_MS = 25_000;
/**
 * Handler failures before an item is dead (WORK_MAX_HANDLER_FAILURES), low so the poison case is
 * quick, yet enough that their backoffs (2 + 4 + 8 + 16 s) outlast DELIVERY_SWEEP_AFTER: the
 * sweeper must leave an item that waits for its retry alone, not start it over with a fresh count.
 */
const MAX_HANDLER_FAILURES = 5;

const ready = requireService('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port) && requireService('NATS', TEST_NATS.host, TEST_NATS.port);

(ready ? describe : describe.skip)('fault suite: API + 2 dispatchers on MariaDB and NATS', () => {
  const stack = new FaultStack({
    env: {
      WORK_MAX_HANDLER_FAILURES: String(MAX_HANDLER_FAILURES),
      // The sweeper re-queues deliveries whose queue item was lost (case f) within seconds, not minutes.
      DELIVERY_SWEEP_INTERVAL: '2s',
      DELIVERY_SWEEP_AFTER: '15s',
    },
  });
  const suiteStart = Date.now();

  beforeAll(async () => {
    assertBuilt();
    await stack.start();
  }, 240_000);

  afterAll(async () => {
    await stack.stop();
    console.log(`FAULT REPORT shared-servers suite finished in ${((Date.now() - suiteStart) / 1000).toFixed(1)} s`);
  }, 60_000);

  it('a) loses nothing when a dispatcher is killed with SIGKILL mid-flow and restarted', async () => {
    const run = new CaseRun('a: dispatcher kill -9 + restart', stack);
    const batches = EVENTS_PER_CASE / 100;
    const publishing = (async () => {
      for (let i = 0; i < batches; i++) await run.publish(100, 1000 + i);
    })();
    // Kill once deliveries are well under way (and intake may still be running).
    await run.untilDelivered(EVENTS_PER_CASE);
    expect(run.tally().distinct).toBeGreaterThan(0);
    await stack.killDispatcher(0);
    const killedAt = Date.now();
    await sleep(1_000);
    await stack.startDispatcher(0);
    const restartedAt = Date.now();
    await publishing;
    const completedAt = await run.waitForAll();
    // The survivor keeps delivering; what the killed one held comes back after JetStream's ack wait.
    run.report(
      completedAt && completedAt - killedAt,
      `all delivered after the kill (restarted in ${restartedAt - killedAt} ms; ` +
        `deliveries in the second after the kill: ${stack.receiver.arrivals.filter((a) => a.at >= killedAt && a.at < killedAt + 1_000).length})`,
    );
  }, 300_000);

  it('b) loses nothing when NATS is unreachable for 5 s during intake', async () => {
    const natsProxy = stack.natsProxy!;
    const run = new CaseRun('b: NATS unreachable 5 s during intake', stack);
    let closedAt = 0;
    let reopenedAt = 0;
    const duringOutage = new Set<string>();
    let outage: Promise<void> | null = null;
    let readyDuringOutage: { status: number; body: unknown } | null = null;
    for (let seq = 2000; run.accepted.size < EVENTS_PER_CASE || (outage && !reopenedAt); seq++) {
      if (!outage && run.accepted.size >= 500) {
        await natsProxy.close();
        closedAt = Date.now();
        outage = sleep(OUTAGE_MS).then(async () => {
          await natsProxy.reopen();
          reopenedAt = Date.now();
        });
      }
      if (closedAt && !reopenedAt && Date.now() - closedAt > 2_500 && readyDuringOutage?.status !== 503) readyDuringOutage = await readiness(stack);
      const startedAt = Date.now();
      const { ids } = await run.publish(50, seq);
      if (closedAt && startedAt >= closedAt && !reopenedAt) for (const id of ids) duringOutage.add(id);
      await sleep(200);
    }
    await outage;
    const completedAt = await run.waitForAll();
    expect(readyDuringOutage).toEqual({ status: 503, body: { code: 'unavailable', message: 'queue does not answer', status: 'unavailable', storage: 'up', queue: 'down' } });
    const recovery = firstArrivalAfter(stack, reopenedAt, (id) => duringOutage.has(id));
    const arrivalsDuringOutage = stack.receiver.arrivals.filter((a) => a.at >= closedAt && a.at < reopenedAt).length;
    run.report(
      recovery,
      `first delivery of an event accepted while NATS was away, after it came back (${duringOutage.size} events accepted during the outage, ` +
        `${arrivalsDuringOutage} deliveries made during it; all delivered ${seconds(reopenedAt, completedAt)} after)`,
    );
    // Intake keeps a SQL outbox: NATS being away must not refuse events.
    expect(duringOutage.size).toBeGreaterThan(0);
  }, 300_000);

  it('c) answers 503 while MariaDB is unreachable for the API, recovers by itself, and loses nothing accepted', async () => {
    const mysqlProxy = stack.mysqlProxy!;
    const run = new CaseRun('c: MariaDB unreachable for the API 5 s during intake', stack);
    let closedAt = 0;
    let reopenedAt = 0;
    let recoveredAt = 0;
    const statusesWhileDown = new Map<number, number>();
    let outage: Promise<void> | null = null;
    const recoveryDeadline = () => reopenedAt && !recoveredAt && Date.now() - reopenedAt > 60_000;
    for (let seq = 3000; run.accepted.size < EVENTS_PER_CASE || (outage && !reopenedAt); seq++) {
      let cut: Promise<void> | null = null;
      if (!outage && run.accepted.size >= 500) {
        // Cut the database while this very request is in flight (its transaction half done).
        cut = sleep(10).then(async () => {
          await mysqlProxy.close();
          closedAt = Date.now();
          outage = sleep(OUTAGE_MS).then(async () => {
            await mysqlProxy.reopen();
            reopenedAt = Date.now();
          });
        });
      }
      const startedAt = Date.now();
      const { status } = await run.publish(50, seq);
      await cut;
      const down = closedAt && startedAt >= closedAt && !reopenedAt;
      if (down) statusesWhileDown.set(status, (statusesWhileDown.get(status) ?? 0) + 1);
      if (reopenedAt && !recoveredAt && status === 202 && startedAt >= reopenedAt) recoveredAt = Date.now();
      if (recoveryDeadline()) break;
      await sleep(down ? 100 : 200);
    }
    await outage;
    const completedAt = await run.waitForAll();
    const whileDown = [...statusesWhileDown].map(([status, n]) => `${status || 'no answer'}x${n}`).join(' ');
    run.report(
      recoveredAt ? recoveredAt - reopenedAt : null,
      `API answered 202 again after MariaDB came back (answers while down: ${whileDown}, slowest 503 in ${run.slowest.get(503) ?? 0} ms; ` +
        `events delivered without a 202: ${deliveredWithout202(stack)}; all delivered ${seconds(reopenedAt, completedAt)} after)`,
    );
    // While the database is away, intake refuses with 503 (and nothing but 503).
    expect(statusesWhileDown.get(503) ?? 0).toBeGreaterThan(0);
    expect([...statusesWhileDown.keys()].filter((status) => status !== 503 && status !== 202)).toEqual([]);
    expect(recoveredAt).toBeGreaterThan(0);
  }, 300_000);

  it('i) answers 503 within DATABASE_STATEMENT_TIMEOUT while MariaDB stops answering the API, and loses nothing accepted', async () => {
    const mysqlProxy = stack.mysqlProxy!;
    const run = new CaseRun('i: MariaDB stops answering the API 25 s during intake', stack);
    // The group-commit wait limit and the default DATABASE_STATEMENT_TIMEOUT, 10 s each, and a margin for a loaded machine.
    const answerWithinMs = 10_000 + 10_000 + 3_000;
    let stalledAt = 0;
    let resumedAt = 0;
    let recoveredAt = 0;
    let stopping = false;
    const requests: Array<{ startedAt: number; endedAt: number; status: number }> = [];
    let readDuringStall = { status: 0, body: '', ms: 0 };
    const producer = async (first: number) => {
      for (let seq = first; !stopping; seq += 4) {
        const startedAt = Date.now();
        const { status } = await run.publish(50, seq);
        const endedAt = Date.now();
        requests.push({ startedAt, endedAt, status });
        if (resumedAt && startedAt >= resumedAt && status === 202 && !recoveredAt) recoveredAt = endedAt;
        if (run.accepted.size >= EVENTS_PER_CASE && recoveredAt) stopping = true;
        await sleep(status === 202 ? 50 : 200);
      }
    };
    const producers = Promise.all([0, 1, 2, 3].map((n) => producer(8000 + n)));
    try {
      await run.untilAccepted(500);
      mysqlProxy.stall();
      stalledAt = Date.now();
      const readStartedAt = Date.now();
      readDuringStall = { ...(await stack.request('GET', '/v3/Webhook', undefined, { 'api-key': stack.apiKey })), ms: Date.now() - readStartedAt };
      await sleep(STALL_MS - (Date.now() - stalledAt));
      mysqlProxy.resume();
      resumedAt = Date.now();
      await run.untilAccepted(EVENTS_PER_CASE, 120_000);
    } finally {
      stopping = true;
      mysqlProxy.resume();
      await producers;
    }
    const completedAt = await run.waitForAll();
    // Answers within 100 ms of the stall may carry a commit made just before it.
    const overlapping = requests.filter((r) => r.endedAt > stalledAt + 100 && r.startedAt < resumedAt);
    const answeredDuringStall = overlapping.filter((r) => r.endedAt < resumedAt);
    const startedDuringStall = overlapping.filter((r) => r.startedAt >= stalledAt);
    const waited = (r: { startedAt: number; endedAt: number }) => Math.min(r.endedAt, resumedAt) - Math.max(r.startedAt, stalledAt);
    run.report(
      recoveredAt ? recoveredAt - resumedAt : null,
      `first 202 after MariaDB answered again (intake requests during the stall: ${overlapping.length}, waits ${overlapping.map((r) => `${waited(r)} ms${r.endedAt < resumedAt ? ` -> ${r.status}` : ' -> after it'}`).join(', ')}; ` +
        `GET /v3/Webhook during it: ${readDuringStall.status} in ${readDuringStall.ms} ms; events delivered without a 202: ${deliveredWithout202(stack)}; all delivered ${seconds(resumedAt, completedAt)} after)`,
    );
    // Nothing hangs for the length of the stall: a request gave up with 503 within its wait and
    // statement limits, or was still within them when MariaDB came back. Only a COMMIT already
    // sent waits (it may commit): requests in flight at the stall may be answered after it.
    expect(answeredDuringStall.length).toBeGreaterThan(0);
    expect(startedDuringStall.filter((r) => r.endedAt < resumedAt).length).toBeGreaterThan(0);
    expect(answeredDuringStall.filter((r) => r.status !== 503)).toEqual([]);
    expect(startedDuringStall.filter((r) => waited(r) > answerWithinMs)).toEqual([]);
    expect({ status: readDuringStall.status, code: (JSON.parse(readDuringStall.body) as { code?: string }).code }).toEqual({ status: 503, code: 'unavailable' });
    expect(readDuringStall.ms).toBeLessThan(answerWithinMs);
    expect(recoveredAt).toBeGreaterThan(0);
  }, 300_000);

  it('d) delivers every event answered 202 when the API is killed with SIGKILL in the middle of intake and restarted', async () => {
    const run = new CaseRun('d: API kill -9 during intake + restart', stack);
    let seq = 4000;
    let stopping = false;
    let inFlight = 0;
    let inFlightAtKill = 0;
    let firstAcceptedAfterRestart = 0;
    let restartedAt = 0;
    // Four producers at once, so requests are in flight (transactions half done) when the API dies.
    const producer = async () => {
      while (!stopping) {
        inFlight++;
        const { status } = await run.publish(50, seq++);
        inFlight--;
        if (status === 202 && restartedAt && !firstAcceptedAfterRestart) firstAcceptedAfterRestart = Date.now();
        if (status !== 202) await sleep(100);
        if (run.accepted.size >= EVENTS_PER_CASE && restartedAt) stopping = true;
      }
    };
    const producers = Promise.all([producer(), producer(), producer(), producer()]);
    try {
      await run.untilAccepted(600);
      run.apiDown(Date.now());
      inFlightAtKill = inFlight;
      await stack.killApi();
      const killedAt = Date.now();
      await sleep(500);
      await stack.startApi();
      restartedAt = Date.now();
      run.apiDown(killedAt, restartedAt);
      await run.untilAccepted(EVENTS_PER_CASE);
    } finally {
      stopping = true;
      await producers;
    }
    const completedAt = await run.waitForAll();
    run.report(
      firstAcceptedAfterRestart ? firstAcceptedAfterRestart - restartedAt : null,
      `first 202 after the restarted API listened (requests in flight at the kill: ${inFlightAtKill}, refused while down: ${run.refusedConnections}; ` +
        `events delivered without a 202: ${deliveredWithout202(stack)}; all delivered ${seconds(restartedAt, completedAt)} after the restart)`,
    );
    expect(inFlightAtKill).toBeGreaterThan(0);
  }, 300_000);

  it('e) marks a poison item failed after WORK_MAX_HANDLER_FAILURES while healthy deliveries flow', async () => {
    const run = new CaseRun('e: poison item beside healthy traffic', stack);
    // A webhook whose stored secret was sealed with a key this installation does not have: every
    // attempt of its deliveries throws before any call (what a lost SECRETS_KEY does to a running
    // server; a restarted one refuses to start, so the webhook is removed once the case is over).
    const poisonId = await stack.createWebhook('/poison', [OTHER_EVENT_TYPE]);
    const foreignKey = new SecretBox(randomBytes(32)).seal(`whsec_${randomBytes(24).toString('base64')}`);
    await stack.sql('UPDATE webhooks SET secret_sealed = ? WHERE id = ?', [foreignKey, poisonId]);
    const poisonRun = new CaseRun('poison', stack, ['/poison']);
    const startedAt = Date.now();
    for (let i = 0; i < EVENTS_PER_CASE / 100; i++) {
      await run.publish(100, 6000 + i);
      if (i % 5 === 0) await poisonRun.publish(5, 6100 + i, OTHER_EVENT_TYPE);
    }
    const completedAt = await run.waitForAll();
    const failedAt = await waitForFailedDeliveries(stack, poisonId, poisonRun.accepted.size, 90_000);
    const poisonStatuses = await deliveryStatuses(stack, poisonId);
    run.report(
      completedAt && completedAt - startedAt,
      `healthy traffic all delivered after the first publish, beside ${poisonRun.accepted.size} poison deliveries ` +
        `(statuses ${JSON.stringify(poisonStatuses)}, all failed ${seconds(startedAt, failedAt)} after the first publish, ${MAX_HANDLER_FAILURES} handler failures each)`,
    );
    expect(poisonRun.accepted.size).toBeGreaterThan(0);
    expect(stack.receiver.arrivals.filter((a) => poisonRun.accepted.has(a.eventId))).toEqual([]);
    expect(poisonStatuses).toEqual({ failed: poisonRun.accepted.size });
    await stack.sql('DELETE FROM webhooks WHERE id = ?', [poisonId]);
  }, 300_000);

  it('f) re-queues everything when the JetStream stream is deleted under load', async () => {
    const run = new CaseRun('f: JetStream stream deleted under load', stack);
    let deletedAt = 0;
    const publishing = (async () => {
      for (let i = 0; i < EVENTS_PER_CASE / 100; i++) {
        await run.publish(100, 5000 + i);
        await sleep(50);
      }
    })();
    await run.untilDelivered(1_500);
    let waitingAtDeletion = 0;
    const mark = stack.logMark();
    try {
      // The dispatchers go first, so that waiting work lives in the stream alone (a running dispatcher
      // holds its prefetched items in memory, and would deliver them whatever became of the stream).
      await Promise.all([stack.killDispatcher(0), stack.killDispatcher(1)]);
      await sleep(500);
      waitingAtDeletion = run.accepted.size * stack.webhookPaths.length - run.tally().distinct;
      await deleteTestStream(stack.prefix);
      deletedAt = Date.now();
      await Promise.all([stack.startDispatcher(0), stack.startDispatcher(1)]);
    } finally {
      await publishing;
    }
    const completedAt = await run.waitForAll(180_000);
    const logs = stack.logsSince(mark);
    const requeued = [...logs.matchAll(/"requeued":(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
    run.report(
      completedAt && completedAt - deletedAt,
      `all delivered after the deletion (${waitingAtDeletion} deliveries waiting when the stream and its messages went; ` +
        `${requeued} re-queued by the sweeper; first delivery after it ${ms(firstArrivalAfter(stack, deletedAt))})`,
    );
    expect(logs).toContain(`JetStream stream ${stack.prefix}_work was missing: created again`);
    expect(requeued).toBeGreaterThan(0);
  }, 300_000);
});

/** Counts of the webhook's deliveries by status (first 100 pages of 100 at most). */
async function deliveryStatuses(stack: FaultStack, webhookId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const answer = await stack.request('GET', `/v3/Webhook/${webhookId}/deliveries?${query}`, undefined, { 'api-key': stack.apiKey });
    if (answer.status !== 200) throw new Error(`listing deliveries answered ${answer.status}: ${answer.body}`);
    const body = JSON.parse(answer.body) as { deliveries: Array<{ status: string }>; nextCursor: string | null };
    for (const delivery of body.deliveries) counts[delivery.status] = (counts[delivery.status] ?? 0) + 1;
    cursor = body.nextCursor;
    if (!cursor) break;
  }
  return counts;
}

/** When all `count` deliveries of the webhook were `failed`, or null after `timeoutMs`. */
async function waitForFailedDeliveries(stack: FaultStack, webhookId: string, count: number, timeoutMs: number): Promise<number | null> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (((await deliveryStatuses(stack, webhookId)).failed ?? 0) >= count) return Date.now();
    await sleep(1_000);
  }
  return null;
}

async function readiness(stack: FaultStack): Promise<{ status: number; body: unknown }> {
  const { status, body } = await stack.request('GET', '/ready', undefined, {});
  return { status, body: JSON.parse(body) };
}
