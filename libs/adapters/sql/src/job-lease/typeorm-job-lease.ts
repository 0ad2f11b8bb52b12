import { JobLease } from '../../../../kernel/src';
import { TypeormDatabase } from '../typeorm-database';

/**
 * Named leases in `job_leases` (migration 1732230002000): taken by an INSERT when the name is
 * new (the holder read back after it), else by an UPDATE that only matches an expired lease or the holder's own. Each statement
 * is atomic on both engines, so two processes never both succeed. Runs outside any ambient
 * transaction by design of its callers (a lease must be visible to others at once).
 */
export class TypeormJobLease extends JobLease {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  async acquire(name: string, holder: string, now: Date, ttlMs: number): Promise<boolean> {
    const at = now.getTime();
    const expiresAt = at + ttlMs;
    const updated = await this.db.exec('UPDATE job_leases SET holder = ?, expires_at = ?, acquired_at = ? WHERE name = ? AND (holder = ? OR expires_at <= ?)', [
      holder,
      expiresAt,
      at,
      name,
      holder,
      at,
    ]);
    if (updated.affected === 1) return true;
    // A new name: the insert skips a row another holder stored meanwhile (and only that). MySQL counts
    // a skipped row as affected (CLIENT_FOUND_ROWS), so who holds the lease is read back.
    await this.db.exec(`INSERT INTO job_leases (name, holder, expires_at, acquired_at) VALUES (?, ?, ?, ?)${this.db.skipDuplicates('name')}`, [
      name,
      holder,
      expiresAt,
      at,
    ]);
    const [row] = await this.db.query<{ holder: string }>('SELECT holder FROM job_leases WHERE name = ?', [name]);
    return row?.holder === holder;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.db.exec('DELETE FROM job_leases WHERE name = ? AND holder = ?', [name, holder]);
  }
}
