import { Run } from './run';
import type { RunPosition } from './run-cursor';
import { Workflow } from './workflow';

export abstract class WorkflowRepository {
  abstract insert(workflow: Workflow): Promise<void>;
  /** Writes every mutable field (name, state, trigger, steps, token hash, updatedAt). */
  abstract update(workflow: Workflow): Promise<void>;
  abstract findById(accountId: number, id: string): Promise<Workflow | null>;
  /** As findById; in a unit of work, no other unit of work changes it until this one ends (a change built on what was read is never overwritten). */
  abstract lockById(accountId: number, id: string): Promise<Workflow | null>;
  /** The account's workflows by id (oldest first), after `afterId` when given, at most `limit`. */
  abstract listByAccount(accountId: number, afterId: string | null, limit: number): Promise<Workflow[]>;
  /** How many workflows the account has; in a unit of work, the account's other creates wait for its commit (the limit's check). */
  abstract countByAccount(accountId: number): Promise<number>;
  /** False when the account has no such workflow. */
  abstract delete(accountId: number, id: string): Promise<boolean>;
  /**
   * For each SHA-256, the active workflow whose current trigger token has it, or null, in the order
   * given: concurrent trigger calls share one indexed lookup.
   */
  abstract findActiveByTriggerTokenHashes(tokenHashes: string[]): Promise<Array<Workflow | null>>;
}

/** A run given a fresh queue item: the item's seq and when it is due. */
export interface ScheduledRun {
  id: string;
  seq: number;
  nextAt: Date;
}

export abstract class RunRepository {
  /** Stores new runs, in as few statements as their size allows. */
  abstract insertMany(runs: Run[]): Promise<void>;
  abstract findById(id: string): Promise<Run | null>;
  /**
   * Writes status, finishedAt, stepIndex, seq, step states and nextAt, only if the stored seq is
   * still `expectedSeq`; false when another worker moved the run first.
   */
  abstract saveProgress(run: Run, expectedSeq: number): Promise<boolean>;
  /**
   * Up to `limit` running runs whose next step was due before `staleBefore` (their queue item is
   * presumed lost), rescheduled for `now` with seq bumped, so that an item of theirs still alive is
   * outdated. Returns them. Runs in the caller's transaction, the rows locked until it ends.
   */
  abstract rescheduleStale(staleBefore: Date, now: Date, limit: number): Promise<ScheduledRun[]>;
  /** Newest first (by start, then id); with `after`, only the runs that come after that position. */
  abstract listByWorkflow(accountId: number, workflowId: string, limit: number, after?: RunPosition): Promise<Run[]>;
  abstract deleteByWorkflow(accountId: number, workflowId: string): Promise<void>;
  /** A running run at `seq` whose step handler threw has its next step due at `at` (its queue item comes back then). */
  abstract postpone(id: string, seq: number, at: Date): Promise<void>;
  /** Deletes at most `limit` finished runs (not `running`) started before `cutoff`, oldest first; returns how many. */
  abstract deleteStartedBefore(cutoff: Date, limit: number): Promise<number>;
}
