import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WalSync } from './wal-sync';

describe('WalSync', () => {
  it('rejects the callers a failed sync covered, and serves the next ones with a new sync', async () => {
    const results = [null, new Error('EIO'), null];
    let calls = 0;
    const sync = new WalSync(async () => {
      const result = results[calls++];
      if (result) throw result;
    });
    // The first starts a sync at once; the two made during it share the next, which fails.
    const first = sync.durable();
    const covered = [sync.durable(), sync.durable()];
    await expect(first).resolves.toBeUndefined();
    await expect(covered[0]).rejects.toThrow('EIO');
    await expect(covered[1]).rejects.toThrow('EIO');
    await expect(sync.durable()).resolves.toBeUndefined();
    expect(calls).toBe(3);
  });

  it('syncs a database file\'s WAL and its folder, and a missing WAL needs nothing', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'wal-sync-'));
    try {
      writeFileSync(join(folder, 'service.db-wal'), 'frames');
      await expect(WalSync.forDatabase(join(folder, 'service.db')).durable()).resolves.toBeUndefined();
      await expect(WalSync.forDatabase(join(folder, 'other.db')).durable()).resolves.toBeUndefined();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
