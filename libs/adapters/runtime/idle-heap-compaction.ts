import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleHeapCompactionOptions {
  /** How often the process looks (default 2 s). */
  intervalMs: number;
  /** Event-loop utilisation over the last interval below which the process counts as idle (default 0.05). */
  idleBelow: number;
  /**
   * Heap in use, as a multiple of what was live after the last full collection, that makes one worth
   * it (default 1.5); so does a heap whose generations hold (growth − 1) × that much more than they use.
   */
  growth: number;
}

/** Slack under which a sparse heap is left as it is, however small the live heap. */
const MIN_SLACK_BYTES = 16 * 1048576;

const DEFAULTS: IdleHeapCompactionOptions = { intervalMs: 2_000, idleBelow: 0.05, growth: 1.5 };

/**
 * After a burst V8 keeps the heap it grew to: the garbage a burst promoted to the old generation
 * is collected only when the heap nears a limit that the burst itself raised, so a server that took
 * 200,000 events an hour ago could still hold that hour's resident memory (measured: 60 MiB live
 * in a 200 MiB heap). When the process was nearly idle for a whole interval and its heap holds
 * much more than was live after the last full collection, this runs one, so resident memory
 * follows what is live. A full collection of such a heap takes tens of milliseconds, and only
 * ever runs when there is nothing else to do.
 */
export class IdleHeapCompaction implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('IdleHeapCompaction');
  private readonly options: IdleHeapCompactionOptions;
  private timer?: NodeJS.Timeout;
  private liveAfterLast: number;
  private slackAfterLast = 0;

  constructor(
    options: Partial<IdleHeapCompactionOptions> = {},
    private readonly collect: (() => void) | null = fullCollection(),
    private readonly load: ProcessLoad = new NodeProcessLoad(),
  ) {
    this.options = { ...DEFAULTS, ...options };
    this.liveAfterLast = load.heapUsed();
  }

  onApplicationBootstrap(): void {
    if (!this.collect) return;
    this.timer = setInterval(() => this.check(), this.options.intervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One look: collects when idle and grown (or sparse); returns whether it did. */
  check(): boolean {
    const utilization = this.load.utilizationSinceLastLook();
    const used = this.load.heapUsed();
    if (!this.collect || utilization >= this.options.idleBelow || !this.worthCollecting(used)) return false;
    const started = performance.now();
    this.collect();
    this.liveAfterLast = this.load.heapUsed();
    this.slackAfterLast = this.load.heapSlack();
    this.logger.debug({
      msg: 'idle: full heap collection',
      heapBeforeMiB: Math.round(used / 1048576),
      heapAfterMiB: Math.round(this.liveAfterLast / 1048576),
      tookMs: Math.round(performance.now() - started),
    });
    return true;
  }

  /**
   * Grown, or sparse: V8's own full collections free the garbage of a burst but leave most of the
   * old generation's pages committed, each holding a few survivors (40 MiB live in 126 MiB), and the
   * young generation keeps the size a burst grew it to (on Node 24, 128 MiB committed for 3 MiB in
   * use, a third of the process's resident memory at rest). Slack that a compaction left is not
   * counted, so a heap that cannot shrink is not collected again and again.
   */
  private worthCollecting(used: number): boolean {
    const { growth } = this.options;
    const newSlack = this.load.heapSlack() - this.slackAfterLast;
    return used > this.liveAfterLast * growth || newSlack > Math.max(MIN_SLACK_BYTES, this.liveAfterLast * (growth - 1));
  }
}

/** What the decision reads: how busy the event loop was since the last look, the heap in use, and its slack. */
export interface ProcessLoad {
  utilizationSinceLastLook(): number;
  heapUsed(): number;
  /** Bytes the old and young generations hold committed beyond what their objects use. */
  heapSlack(): number;
}

class NodeProcessLoad implements ProcessLoad {
  private last = performance.eventLoopUtilization();

  utilizationSinceLastLook(): number {
    const utilization = performance.eventLoopUtilization(this.last).utilization;
    this.last = performance.eventLoopUtilization();
    return utilization;
  }

  heapUsed(): number {
    return process.memoryUsage().heapUsed;
  }

  heapSlack(): number {
    let slack = 0;
    for (const space of getHeapSpaceStatistics()) {
      if (space.space_name === 'old_space' || space.space_name === 'new_space') slack += space.space_size - space.space_used_size;
    }
    return slack;
  }
}

/**
 * V8's full collection, compacting: global.gc under --expose-gc, else exposed now (the flag only adds
 * the function). A plain full collection frees the burst's garbage but moves only the pages V8's
 * heuristics pick, so a heap of 40 MiB live kept 126 MiB of old space committed after 200,000 events;
 * compacting every page of this one collection brought the process from 258 to 172 MiB (test/bench/notes.md).
 * From V8 12 (Node 22 on) the `last-resort` flavour, V8's own collection when memory runs short,
 * compacts as well and also shrinks the young generation back (on Node 24 a burst leaves it 128 MiB
 * committed; 1 MiB after): 160 ms for 50 MiB live, where the compacting collection took 105 ms and
 * left the young generation as it was. Node 20's V8 knows no flavour; its young generation stays at
 * most 32 MiB.
 */
function fullCollection(): (() => void) | null {
  const gc = exposedGc();
  if (!gc) return null;
  if (Number(process.versions.v8.split('.')[0]) >= 12) return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return () => {
    setFlagsFromString('--compact-on-every-full-gc');
    try {
      gc();
    } finally {
      setFlagsFromString('--no-compact-on-every-full-gc');
    }
  };
}

type Gc = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

function exposedGc(): Gc | null {
  const exposed = (globalThis as { gc?: Gc }).gc;
  if (typeof exposed === 'function') return exposed;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as Gc) : null;
  } catch {
    return null;
  }
}
