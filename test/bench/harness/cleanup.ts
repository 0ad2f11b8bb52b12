import { rmSync } from 'node:fs';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createConnection } from 'mysql2/promise';
import { TEST_MYSQL, TEST_NATS } from '../../support/services';

/**
 * What a bench run leaves behind and how to remove it. The orchestrator undoes each item when a
 * profile ends; the janitor process (janitor.process.ts) undoes whatever is left if the
 * orchestrator dies first, so no process, database, stream or temp dir outlives a run.
 */
export type Leftover = { kind: 'process'; pid: number } | { kind: 'database'; name: string } | { kind: 'dir'; path: string } | { kind: 'nats'; prefix: string };

export const leftoverKey = (item: Leftover): string => `${item.kind}:${'pid' in item ? item.pid : 'name' in item ? item.name : 'path' in item ? item.path : item.prefix}`;

export async function removeLeftover(item: Leftover): Promise<void> {
  switch (item.kind) {
    case 'process':
      try {
        process.kill(item.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      return;
    case 'dir':
      rmSync(item.path, { recursive: true, force: true });
      return;
    case 'database': {
      const connection = await createConnection({ host: TEST_MYSQL.host, port: TEST_MYSQL.port, user: TEST_MYSQL.user });
      try {
        await connection.query(`DROP DATABASE IF EXISTS \`${item.name}\``);
      } finally {
        await connection.end();
      }
      return;
    }
    case 'nats': {
      const nc = await connect({ servers: TEST_NATS.url, timeout: 2_000 });
      try {
        const jsm = await jetstreamManager(nc);
        for await (const name of jsm.streams.names()) {
          if (name.startsWith(`${item.prefix}_`) || name.includes(`_${item.prefix}_`)) await jsm.streams.delete(name).catch(() => undefined);
        }
      } finally {
        await nc.close();
      }
      return;
    }
  }
}
