import type { LoadResult } from '../harness/load-job';
import type { ReceiverStats } from '../harness/receiver.process';
import { Run } from '../harness/run';
import { BenchServer } from '../harness/server';
import { ReceiverProcess, serverErrors } from '../harness/tools';
import { FigureRow, figureRow, LedgerRow } from '../report';
import { BaselineMeter, Bracketed, bracketed } from './baselines';

/** What every figure of one profile works with, and where it puts its rows. */
export class Context {
  readonly rows: FigureRow[] = [];
  readonly ledger: LedgerRow[] = [];
  /** 5xx answers (and requests never answered) of every load sent to the server, by phase. */
  readonly serverErrors = new Map<string, number>();
  /** Set when a step threw; the run then exits non-zero after writing what it measured. */
  failed = false;

  constructor(
    readonly run: Run,
    readonly server: BenchServer,
    /** Receives the main account's webhook (answers 200 at once). */
    readonly receiver: ReceiverProcess,
    readonly account: { id: number; apiKey: string },
    /** Measures the baselines, beside the figures they bound. */
    readonly baselines: BaselineMeter,
    /** The main account's webhook, pointing at the receiver (whose signature checks use its secret). */
    readonly mainWebhook: { id: string; secret: string },
  ) {}

  /** Runs `figure` between two measures of its baseline, each once the server is quiet (see `bracketed`). */
  bracket<T>(measure: () => Promise<number>, figure: () => Promise<T>): Promise<{ result: T; baseline: Bracketed }> {
    return bracketed(() => this.server.waitQuiet(), measure, figure);
  }

  get profile(): string {
    return this.server.profile;
  }

  get internal(): Record<string, string> {
    return { authorization: `Bearer ${this.server.internalToken}` };
  }

  add(row: Omit<Parameters<typeof figureRow>[0], 'profile'>): FigureRow {
    const made = figureRow({ ...row, profile: this.profile });
    this.rows.push(made);
    return made;
  }

  /** Books one phase: accepted by the server vs delivered distinct, duplicates and 5xx. */
  book(phase: string, load: LoadResult, delivered: ReceiverStats): void {
    this.countErrors(phase, load);
    this.ledger.push({
      profile: this.profile,
      phase,
      accepted: load.accepted,
      delivered: delivered.distinct,
      lost: Math.max(0, load.accepted - delivered.distinct),
      duplicates: delivered.duplicates,
      serverErrors: serverErrors(load),
      signaturesChecked: delivered.signaturesChecked,
      signaturesFailed: delivered.signaturesFailed,
    });
  }

  countErrors(phase: string, load: LoadResult): void {
    this.serverErrors.set(phase, (this.serverErrors.get(phase) ?? 0) + serverErrors(load));
  }
}

/** Time allowed for `events` deliveries to arrive after intake: generous, since a slow engine is a result, not a failure. */
export const deliveryTimeoutMs = (events: number) => 120_000 + events * 10;
