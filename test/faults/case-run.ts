import { FaultStack, RecordingReceiver } from './fault-stack';
import { recordRow } from './fault-table';

/** Events each case gets accepted (answered 202) at least. */
export const EVENTS_PER_CASE = 2_000;
const COMPLETION_TIMEOUT_MS = 120_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const ms = (value: number | null) => (value === null ? 'never' : `${value} ms`);
export const seconds = (from: number, to: number | null) => (to === null ? 'never' : `${((to - from) / 1000).toFixed(1)} s`);

/**
 * What one case published, what the API answered, and what the receiver got for it. `report()`
 * prints the line, adds the case's row to the fault table and asserts: nothing accepted lost,
 * duplicates under 5% (a killed dispatcher makes again the calls it had not recorded), no answer
 * outside the contract.
 */
export class CaseRun {
  /** Every event id any case of this file got 202 for: a delivery of any other id was stored although not answered 202. */
  static readonly acceptedAnywhere = new Set<string>();
  readonly accepted = new Set<string>();
  readonly statuses = new Map<number, number>();
  /** Answers that break the contract under a fault: a 500, an unparseable 503, a dropped request outside an outage. */
  readonly unexpected: string[] = [];
  /** Requests that failed at the socket while the API itself was down (expected then, counted apart). */
  refusedConnections = 0;
  published = 0;
  /** Slowest answer per status, in ms. */
  readonly slowest = new Map<number, number>();
  private readonly apiOutages: Array<{ from: number; to: number }> = [];

  constructor(
    readonly label: string,
    private readonly stack: FaultStack,
    /** The webhooks every accepted event must reach. */
    private readonly paths: string[] = stack.webhookPaths,
  ) {}

  /** The API process is down from `from` to `to` (Infinity while it is): dropped requests then are expected. */
  apiDown(from: number, to = Infinity): void {
    const open = this.apiOutages.find((outage) => outage.to === Infinity);
    if (open) open.to = to;
    else this.apiOutages.push({ from, to });
  }

  /** Publishes one batch and books the answer; returns the status and the ids accepted (202) by it. */
  async publish(count: number, seq: number, type?: string): Promise<{ status: number; ids: string[] }> {
    this.published += count;
    let status = 0;
    let ids: string[] = [];
    const startedAt = Date.now();
    try {
      const result = await this.stack.publish(count, seq, type);
      status = result.status;
      ids = result.ids;
      if (status === 202) {
        if (ids.length !== count) this.unexpected.push(`202 with ${ids.length} ids for ${count} events`);
        for (const id of ids) {
          this.accepted.add(id);
          CaseRun.acceptedAnywhere.add(id);
        }
      } else if (status === 503) {
        const body = JSON.parse(result.body) as { code?: string; message?: string };
        if (body.code !== 'unavailable' || typeof body.message !== 'string') this.unexpected.push(`503 with body ${result.body}`);
      } else {
        this.unexpected.push(`${status}: ${result.body.slice(0, 300)}`);
      }
    } catch (error) {
      const endedAt = Date.now();
      if (this.apiOutages.some((outage) => startedAt <= outage.to && endedAt >= outage.from)) this.refusedConnections++;
      else this.unexpected.push(`request failed: ${String(error)}`);
    }
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    this.slowest.set(status, Math.max(this.slowest.get(status) ?? 0, Date.now() - startedAt));
    return { status, ids };
  }

  /** Distinct (event, webhook) pairs received and total requests, over the events this case got 202 for. */
  tally(): { expected: number; distinct: number; received: number; missing: string[] } {
    const counts = this.stack.receiver.counts;
    let distinct = 0;
    let received = 0;
    const missing: string[] = [];
    for (const id of this.accepted) {
      for (const path of this.paths) {
        const n = counts.get(RecordingReceiver.key(id, path)) ?? 0;
        if (n > 0) distinct++;
        else if (missing.length < 10) missing.push(`${id} ${path}`);
        received += n;
      }
    }
    return { expected: this.accepted.size * this.paths.length, distinct, received, missing };
  }

  /** Waits until every accepted event reached every webhook; the time it did, or null at the timeout. */
  async waitForAll(timeoutMs = COMPLETION_TIMEOUT_MS): Promise<number | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { expected, distinct } = this.tally();
      if (distinct >= expected) return Date.now();
      if (Date.now() > deadline) return null;
      await sleep(250);
    }
  }

  /** Waits until `count` events were accepted or `timeoutMs` passed. */
  async untilAccepted(count: number, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.accepted.size < count && Date.now() < deadline) await sleep(50);
  }

  /** Waits until `count` pairs were delivered or `timeoutMs` passed. */
  async untilDelivered(count: number, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.tally().distinct < count && Date.now() < deadline) await sleep(50);
  }

  /**
   * Prints the report line, records the table row and asserts. `recoveryMs` is the case's one
   * recovery figure (what it measures is said in `detail`), null when it never recovered.
   */
  report(recoveryMs: number | null, detail: string): void {
    const { expected, distinct, received, missing } = this.tally();
    const lost = expected - distinct;
    const duplicates = received - distinct;
    const statuses = [...this.statuses].map(([status, n]) => `${status || 'no answer'}x${n}`).join(' ');
    recordRow({ label: this.label, accepted: this.accepted.size, expected, delivered: distinct, lost, duplicates, recoveryMs, detail });
    console.log(
      `FAULT REPORT [${this.label}] events published ${this.published} (accepted ${this.accepted.size}; answers ${statuses}), ` +
        `pairs expected ${expected}, distinct received ${distinct}, lost ${lost}, duplicates ${duplicates} ` +
        `(${expected ? ((100 * duplicates) / expected).toFixed(2) : '0.00'}%), recovery ${ms(recoveryMs)}: ${detail}`,
    );
    const dead = this.stack.deadProcesses();
    if (lost > 0 || this.unexpected.length > 0 || dead.length > 0) {
      console.log(
        `${this.label}: missing pairs (first 10): ${missing.join(', ')}\nunexpected answers: ${this.unexpected.slice(0, 10).join(' | ')}\n` +
          `processes that died: ${dead.join(', ') || 'none'}\n${this.stack.outputTail()}`,
      );
    }
    expect(this.unexpected).toEqual([]);
    expect(dead).toEqual([]);
    expect(this.accepted.size).toBeGreaterThanOrEqual(EVENTS_PER_CASE);
    expect(lost).toBe(0);
    // At-least-once: calls made just before a crash whose records were lost with it are made again.
    // Duplicates are reported in the table; the bound only catches a runaway (seen: 0 to 1.2 %).
    expect(duplicates).toBeLessThan(expected * 0.05);
  }
}

/**
 * Events delivered although no 202 named them: stored by a request whose answer was lost (the API
 * killed, or the database cut, after the commit). Reported, not lost; producers resend with an id.
 */
export function deliveredWithout202(stack: FaultStack): number {
  return new Set(stack.receiver.arrivals.filter((a) => !CaseRun.acceptedAnywhere.has(a.eventId)).map((a) => a.eventId)).size;
}

/** Time from `since` to the first arrival after it whose event passes `filter`, or null. */
export function firstArrivalAfter(stack: FaultStack, since: number, filter: (eventId: string) => boolean = () => true): number | null {
  const hit = stack.receiver.arrivals.find((a) => a.at >= since && filter(a.eventId));
  return hit ? hit.at - since : null;
}
