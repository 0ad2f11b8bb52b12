import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { MysqlServer } from '../support/databases';
import { freePorts, killNow, killOnExit, waitUntil } from './local-ports';

/** Whether this machine has the MariaDB server binaries the MariaDB case needs. */
export const MARIADB_BINARIES = { server: '/usr/sbin/mariadbd', install: '/usr/bin/mariadb-install-db' };

/**
 * A MariaDB server of the suite's own: its data directory in a temp folder, its own port, root
 * without a password on 127.0.0.1. It can be killed with SIGKILL and started again on the same
 * data (InnoDB's crash recovery then runs), which the shared server on 3306 must never suffer.
 */
export class PrivateMariaDb {
  private child: ChildProcess | null = null;
  private log = '';

  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  static async start(): Promise<PrivateMariaDb> {
    const dir = mkdtempSync(join(tmpdir(), 'wh-fault-mariadb-'));
    const [port] = await freePorts(1);
    const server = new PrivateMariaDb(dir, port);
    try {
      await server.install();
      await server.launch();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  /** Where to reach it, in the shape test/support's database helpers take. */
  get server(): MysqlServer {
    return { host: '127.0.0.1', port: this.port, user: 'root', url: `mysql://root@127.0.0.1:${this.port}` };
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** What the server printed, last lines first to go. */
  outputTail(lines = 20): string {
    return this.log.split('\n').slice(-lines).join('\n');
  }

  /** SIGKILL: no shutdown, no flush beyond what InnoDB already made durable. */
  async kill(): Promise<void> {
    if (this.child) await killNow(this.child);
    this.child = null;
  }

  /** Starts the server again on the same data directory and port. */
  async restart(): Promise<void> {
    if (this.running) throw new Error('the private MariaDB is still running');
    await this.launch();
  }

  /** Kills the server and removes its data directory. Never throws. */
  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async install(): Promise<void> {
    const args = ['--no-defaults', `--datadir=${join(this.dir, 'data')}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...this.userArgs()];
    const child = spawn(MARIADB_BINARIES.install, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    killOnExit(child);
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    if (code !== 0) throw new Error(`mariadb-install-db exited with ${code}:\n${output}`);
  }

  private async launch(): Promise<void> {
    const child = spawn(
      MARIADB_BINARIES.server,
      [
        '--no-defaults',
        `--datadir=${join(this.dir, 'data')}`,
        `--socket=${join(this.dir, 'mysqld.sock')}`,
        `--pid-file=${join(this.dir, 'mysqld.pid')}`,
        `--port=${this.port}`,
        '--bind-address=127.0.0.1',
        '--skip-name-resolve',
        '--character-set-server=utf8mb4',
        '--collation-server=utf8mb4_unicode_ci',
        '--innodb-buffer-pool-size=64M',
        '--max-connections=300',
        ...this.userArgs(),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    killOnExit(child);
    this.child = child;
    child.stdout!.on('data', (chunk) => (this.log += chunk));
    child.stderr!.on('data', (chunk) => (this.log += chunk));
    await waitUntil(
      `the private MariaDB on port ${this.port}`,
      async () => {
        if (child.exitCode !== null) return true;
        const connection = await createConnection({ host: '127.0.0.1', port: this.port, user: 'root', connectTimeout: 1_000 });
        await connection.end();
        return true;
      },
      60_000,
      () => this.outputTail(),
    );
    if (child.exitCode !== null) throw new Error(`mariadbd exited with ${child.exitCode}:\n${this.outputTail()}`);
  }

  /** mariadbd refuses to run as root unless told to. */
  private userArgs(): string[] {
    return process.getuid?.() === 0 ? ['--user=root'] : [];
  }
}
