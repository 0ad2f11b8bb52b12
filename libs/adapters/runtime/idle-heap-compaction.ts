import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleHeapCompactionOptions {
  /** How often the process looks (default 2 s). */
  intervalMs: number;
  /** Event-loop utilisation over the last interval below which the process counts as idle (default 0.05). */
  idleBelow: number;
  /** Heap in use, as a multiple of what was live after the last full collection, that makes one worth it (default 1.5). */
  growth: number;
}

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

  /** One look: collects when idle and grown; returns whether it did. */
  check(): boolean {
    const utilization = this.load.utilizationSinceLastLook();
    const used = this.load.heapUsed();
    if (!this.collect || utilization >= this.options.idleBelow || used <= this.liveAfterLast * this.options.growth) return false;
    this.collect();
    this.liveAfterLast = this.load.heapUsed();
    this.logger.debug({ msg: 'idle: full heap collection', heapBeforeMiB: Math.round(used / 1048576), heapAfterMiB: Math.round(this.liveAfterLast / 1048576) });
    return true;
  }
}

/** What the decision reads: how busy the event loop was since the last look, and the heap in use. */
export interface ProcessLoad {
  utilizationSinceLastLook(): number;
  heapUsed(): number;
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
}

/** V8's full collection: global.gc under --expose-gc, else exposed now (the flag only adds the function). */
function fullCollection(): (() => void) | null {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    return null;
  }
}
