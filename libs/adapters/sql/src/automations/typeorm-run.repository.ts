import { Run, RunPosition, RunRepository, RunStatus, RunStepState, ScheduledRun, WorkflowStep } from '../../../../automations/src';
import { flatten } from '../../../../kernel/src';
import { takeSqliteWriteLock } from '../read-for-update';
import { rescheduleStaleRows } from '../reschedule-stale';
import { TypeormDatabase } from '../typeorm-database';

interface RunRow {
  id: string;
  account_id: number | string;
  workflow_id: string;
  status: RunStatus;
  trigger_body: string;
  definition: string;
  step_states: string;
  step_index: number | string;
  seq: number | string;
  started_at: number | string;
  finished_at: number | string | null;
  next_at: number | string | null;
}

const COLUMNS = 'id, account_id, workflow_id, status, trigger_body, definition, step_states, step_index, seq, started_at, finished_at, next_at';
const ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const MAX_STATEMENT_BYTES = 4 * 1024 * 1024;

/** Consecutive chunks whose sizes add up to at most `limit` (a single larger item gets a chunk of its own). */
function chunksBySize<T>(items: T[], size: (item: T) => number, limit: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const itemBytes = size(item);
    if (current.length > 0 && bytes + itemBytes > limit) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += itemBytes;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

const toRun = (row: RunRow): Run => {
  const definition = JSON.parse(row.definition) as { name: string; steps: WorkflowStep[] };
  return {
    id: row.id,
    accountId: Number(row.account_id),
    workflowId: row.workflow_id,
    workflowName: definition.name,
    steps: definition.steps,
    status: row.status,
    startedAt: new Date(Number(row.started_at)),
    finishedAt: row.finished_at === null ? null : new Date(Number(row.finished_at)),
    triggerBody: row.trigger_body,
    stepIndex: Number(row.step_index),
    seq: Number(row.seq),
    stepStates: JSON.parse(row.step_states) as RunStepState[],
    nextAt: row.next_at === null ? null : new Date(Number(row.next_at)),
  };
};

/**
 * Runs in `automation_runs`: the trigger body stored once as received and never rewritten; each
 * step of progress rewrites only the small state columns, guarded by `seq`.
 */
export class TypeormRunRepository extends RunRepository {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  /**
   * Multi-row INSERTs, cut so that one statement carries at most ~4 MB of trigger bodies (each up
   * to 256 KB; MySQL's max_allowed_packet is 16 MB by default).
   */
  async insertMany(runs: Run[]): Promise<void> {
    for (const chunk of chunksBySize(runs, (run) => run.triggerBody.length, MAX_STATEMENT_BYTES)) {
      const rows = chunk.map((run) => [
        run.id,
        run.accountId,
        run.workflowId,
        run.status,
        run.triggerBody,
        JSON.stringify({ name: run.workflowName, steps: run.steps }),
        JSON.stringify(run.stepStates),
        run.stepIndex,
        run.seq,
        run.startedAt.getTime(),
        run.finishedAt?.getTime() ?? null,
        run.nextAt?.getTime() ?? null,
      ]);
      await this.db.write(`INSERT INTO automation_runs (${COLUMNS}) VALUES ${rows.map(() => ROW).join(', ')}`, flatten(rows));
    }
  }

  async findById(id: string): Promise<Run | null> {
    const [row] = await this.db.query<RunRow>(`SELECT ${COLUMNS} FROM automation_runs WHERE id = ?`, [id]);
    return row ? toRun(row) : null;
  }

  async saveProgress(run: Run, expectedSeq: number): Promise<boolean> {
    const { affected } = await this.db.exec(
      'UPDATE automation_runs SET status = ?, step_states = ?, step_index = ?, seq = ?, finished_at = ?, next_at = ? WHERE id = ? AND seq = ?',
      [run.status, JSON.stringify(run.stepStates), run.stepIndex, run.seq, run.finishedAt?.getTime() ?? null, run.nextAt?.getTime() ?? null, run.id, expectedSeq],
    );
    return affected > 0;
  }

  /** One range scan of ix_automation_runs_due (status, next_at). */
  async rescheduleStale(staleBefore: Date, now: Date, limit: number): Promise<ScheduledRun[]> {
    const rows = await rescheduleStaleRows(
      this.db,
      { table: 'automation_runs', where: "status = 'running' AND next_at < ?", params: [staleBefore.getTime()], orderBy: 'status, next_at', dueColumn: 'next_at' },
      now,
      limit,
    );
    return rows.map(({ id, seq, at }) => ({ id, seq, nextAt: at }));
  }

  async listByWorkflow(accountId: number, workflowId: string, limit: number, after?: RunPosition): Promise<Run[]> {
    const [before, params] = after
      ? [' AND (started_at < ? OR (started_at = ? AND id < ?))', [after.startedAt.getTime(), after.startedAt.getTime(), after.id]]
      : ['', []];
    const rows = await this.db.query<RunRow>(
      `SELECT ${COLUMNS} FROM automation_runs WHERE workflow_id = ? AND account_id = ?${before} ORDER BY started_at DESC, id DESC LIMIT ?`,
      [workflowId, accountId, ...params, limit],
    );
    return rows.map(toRun);
  }

  async postpone(id: string, seq: number, at: Date): Promise<void> {
    await this.db.exec(`UPDATE automation_runs SET next_at = ? WHERE id = ? AND seq = ? AND status = 'running'`, [at.getTime(), id, seq]);
  }

  async deleteByWorkflow(accountId: number, workflowId: string): Promise<void> {
    await this.db.exec('DELETE FROM automation_runs WHERE workflow_id = ? AND account_id = ?', [workflowId, accountId]);
  }

  /** A run still `running` (a delay or a step's retries in progress) is kept until it ends. */
  async deleteStartedBefore(cutoff: Date, limit: number): Promise<number> {
    await takeSqliteWriteLock(this.db, 'automation_runs');
    const rows = await this.db.query<{ id: string }>(
      `SELECT id FROM automation_runs WHERE started_at < ? AND status <> 'running' ORDER BY started_at LIMIT ${Math.max(1, Math.floor(limit))}`,
      [cutoff.getTime()],
    );
    if (rows.length === 0) return 0;
    // A run never goes back to running, so the rows read are still finished.
    const { affected } = await this.db.exec(`DELETE FROM automation_runs WHERE id IN (${rows.map(() => '?').join(', ')}) AND status <> 'running'`, rows.map((row) => row.id));
    return affected;
  }
}
