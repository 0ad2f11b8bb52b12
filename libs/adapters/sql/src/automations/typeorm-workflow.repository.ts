import { targetIdsOf, Workflow, WorkflowRepository, WorkflowState } from '../../../../automations/src';
import { lockAccountForCreate } from '../accounts/account-create-lock';
import { readForUpdate } from '../read-for-update';
import { TypeormDatabase } from '../typeorm-database';

interface WorkflowRow {
  id: string;
  account_id: number | string;
  name: string;
  state: WorkflowState;
  definition: string;
  trigger_token_hash: string | null;
  created_at: number | string;
  updated_at: number | string;
}

const COLUMNS = 'id, account_id, name, state, definition, trigger_token_hash, created_at, updated_at';

const toWorkflow = (row: WorkflowRow): Workflow => {
  const { trigger, steps } = JSON.parse(row.definition) as Pick<Workflow, 'trigger' | 'steps'>;
  return {
    id: row.id,
    accountId: Number(row.account_id),
    name: row.name,
    state: row.state,
    trigger,
    steps,
    triggerTokenHash: row.trigger_token_hash,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
};

/**
 * Workflows in `workflows`, their trigger and steps as one JSON document, and the targets their
 * steps call in `workflow_targets` (rewritten with every save, in the caller's transaction when
 * there is one).
 */
export class TypeormWorkflowRepository extends WorkflowRepository {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  async insert(workflow: Workflow): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.exec(`INSERT INTO workflows (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
        workflow.id,
        workflow.accountId,
        workflow.name,
        workflow.state,
        definitionOf(workflow),
        workflow.triggerTokenHash,
        workflow.createdAt.getTime(),
        workflow.updatedAt.getTime(),
      ]);
      await this.linkTargets(workflow);
    });
  }

  async update(workflow: Workflow): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.exec('UPDATE workflows SET name = ?, state = ?, definition = ?, trigger_token_hash = ?, updated_at = ? WHERE id = ? AND account_id = ?', [
        workflow.name,
        workflow.state,
        definitionOf(workflow),
        workflow.triggerTokenHash,
        workflow.updatedAt.getTime(),
        workflow.id,
        workflow.accountId,
      ]);
      await this.db.exec('DELETE FROM workflow_targets WHERE workflow_id = ?', [workflow.id]);
      await this.linkTargets(workflow);
    });
  }

  async findById(accountId: number, id: string): Promise<Workflow | null> {
    const [row] = await this.db.query<WorkflowRow>(`SELECT ${COLUMNS} FROM workflows WHERE id = ? AND account_id = ?`, [id, accountId]);
    return row ? toWorkflow(row) : null;
  }

  async lockById(accountId: number, id: string): Promise<Workflow | null> {
    const [row] = await readForUpdate<WorkflowRow>(this.db, { table: 'workflows', columns: COLUMNS, where: 'id = ? AND account_id = ?', params: [id, accountId] });
    return row ? toWorkflow(row) : null;
  }

  async listByAccount(accountId: number, afterId: string | null, limit: number): Promise<Workflow[]> {
    const after = afterId === null ? '' : ' AND id > ?';
    const rows = await this.db.query<WorkflowRow>(`SELECT ${COLUMNS} FROM workflows WHERE account_id = ?${after} ORDER BY id LIMIT ${Math.floor(limit)}`, afterId === null ? [accountId] : [accountId, afterId]);
    return rows.map(toWorkflow);
  }

  async countByAccount(accountId: number): Promise<number> {
    await lockAccountForCreate(this.db, accountId);
    return Number((await this.db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM workflows WHERE account_id = ?', [accountId]))[0].n);
  }

  async delete(accountId: number, id: string): Promise<boolean> {
    return this.db.transaction(async () => {
      const { affected } = await this.db.exec('DELETE FROM workflows WHERE id = ? AND account_id = ?', [id, accountId]);
      if (affected > 0) await this.db.exec('DELETE FROM workflow_targets WHERE workflow_id = ?', [id]);
      return affected > 0;
    });
  }

  async findActiveByTriggerTokenHashes(tokenHashes: string[]): Promise<Array<Workflow | null>> {
    if (tokenHashes.length === 0) return [];
    const distinct = [...new Set(tokenHashes)];
    // An account being deleted keeps its row until the deletion is finished: its URLs stop at once.
    const rows = await this.db.query<WorkflowRow>(
      `SELECT ${COLUMNS} FROM workflows WHERE trigger_token_hash IN (${distinct.map(() => '?').join(', ')}) AND state = 'active'` +
        ' AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = workflows.account_id AND a.deleted_at IS NOT NULL)',
      distinct,
    );
    const byHash = new Map(rows.map((row) => [row.trigger_token_hash, row]));
    return tokenHashes.map((hash) => {
      const row = byHash.get(hash);
      return row ? toWorkflow(row) : null;
    });
  }

  private async linkTargets(workflow: Workflow): Promise<void> {
    const ids = targetIdsOf(workflow.steps);
    if (ids.length === 0) return;
    await this.db.exec(
      `INSERT INTO workflow_targets (workflow_id, target_id, account_id) VALUES ${ids.map(() => '(?, ?, ?)').join(', ')}`,
      ids.flatMap((targetId) => [workflow.id, targetId, workflow.accountId]),
    );
  }
}

function definitionOf(workflow: Workflow): string {
  return JSON.stringify({ trigger: workflow.trigger, steps: workflow.steps });
}
