import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { freePorts, killNow, killOnExit, waitUntil } from './local-ports';

export const NATS_SERVER_BINARY = '/usr/sbin/nats-server';

interface ClusterNode {
  name: string;
  port: number;
  routePort: number;
  configPath: string;
  child: ChildProcess | null;
  log: string;
}

/**
 * A JetStream cluster of the suite's own: `size` nats-server processes on random local ports,
 * routed to each other, each with its own store directory under one temp folder. A node can be
 * killed with SIGKILL and started again on its store.
 */
export class NatsCluster {
  private constructor(
    readonly dir: string,
    readonly nodes: ClusterNode[],
  ) {}

  static async start(size = 3): Promise<NatsCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'wh-fault-nats-'));
    const ports = await freePorts(size * 2);
    const nodes: ClusterNode[] = Array.from({ length: size }, (_, i) => ({
      name: `fault-n${i + 1}`,
      port: ports[2 * i],
      routePort: ports[2 * i + 1],
      configPath: join(dir, `n${i + 1}.conf`),
      child: null,
      log: '',
    }));
    const cluster = new NatsCluster(dir, nodes);
    try {
      for (const node of nodes) cluster.writeConfig(node);
      for (const node of nodes) cluster.launch(node);
      await cluster.waitForJetStream(60_000);
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** Every node's client URL, comma-separated, as NATS_URL takes them. */
  get url(): string {
    return this.nodes.map((node) => `nats://127.0.0.1:${node.port}`).join(',');
  }

  node(name: string): ClusterNode {
    const node = this.nodes.find((each) => each.name === name);
    if (!node) throw new Error(`no node ${name} in the cluster (${this.nodes.map((n) => n.name).join(', ')})`);
    return node;
  }

  /** The stream's leader, replica count and how many replicas are current. */
  async streamInfo(stream: string): Promise<{ leader: string; replicas: number; current: number }> {
    return this.withManager(async (jsm) => {
      const info = await jsm.streams.info(stream);
      return {
        leader: info.cluster?.leader ?? '',
        replicas: info.config.num_replicas,
        current: (info.cluster?.replicas ?? []).filter((replica) => replica.current && !replica.offline).length,
      };
    });
  }

  /** SIGKILL one node: no goodbye to its routes or clients. */
  async kill(name: string): Promise<void> {
    const node = this.node(name);
    if (node.child) await killNow(node.child);
    node.child = null;
  }

  async restart(name: string): Promise<void> {
    this.launch(this.node(name));
  }

  /** Resolves once JetStream answers through the live nodes (a meta leader is elected). */
  async waitForJetStream(timeoutMs: number): Promise<void> {
    await waitUntil('the JetStream cluster to elect a leader', () => this.withManager(async (jsm) => Boolean(await jsm.getAccountInfo())), timeoutMs, () => this.outputTail());
  }

  outputTail(lines = 8): string {
    return this.nodes.map((node) => `--- ${node.name} ---\n${node.log.split('\n').slice(-lines).join('\n')}`).join('\n');
  }

  /** Kills every node and removes the stores. Never throws. */
  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => (node.child ? killNow(node.child) : undefined)));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async withManager<T>(work: (jsm: Awaited<ReturnType<typeof jetstreamManager>>) => Promise<T>): Promise<T> {
    const live = this.nodes.filter((node) => node.child).map((node) => `nats://127.0.0.1:${node.port}`);
    const nc = await connect({ servers: live, timeout: 2_000, maxReconnectAttempts: 0 });
    try {
      return await work(await jetstreamManager(nc, { timeout: 5_000 }));
    } finally {
      await nc.close().catch(() => undefined);
    }
  }

  private writeConfig(node: ClusterNode): void {
    const store = join(this.dir, node.name);
    mkdirSync(store, { recursive: true });
    const routes = this.nodes.filter((other) => other !== node).map((other) => `"nats-route://127.0.0.1:${other.routePort}"`);
    writeFileSync(
      node.configPath,
      [
        `server_name: "${node.name}"`,
        `listen: "127.0.0.1:${node.port}"`,
        `jetstream {`,
        `  store_dir: "${store}"`,
        `  max_memory_store: 64MB`,
        `  max_file_store: 1GB`,
        `}`,
        `cluster {`,
        `  name: "fault-cluster"`,
        `  listen: "127.0.0.1:${node.routePort}"`,
        `  routes: [${routes.join(', ')}]`,
        `}`,
        '',
      ].join('\n'),
    );
  }

  private launch(node: ClusterNode): void {
    const child = spawn(NATS_SERVER_BINARY, ['-c', node.configPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    killOnExit(child);
    node.child = child;
    const keep = (chunk: Buffer) => {
      // Only the tail is ever shown; keep the memory bounded over a long run.
      node.log = (node.log + chunk.toString()).slice(-20_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
  }
}
