import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { eventually, freePorts, portOpen } from './helpers';

export interface ClusterNode {
  /** As JetStream reports a stream's leader. */
  readonly name: string;
  readonly url: string;
  /** As a crashed machine would die, its store left as it was. */
  kill(): Promise<void>;
  restart(): Promise<void>;
}

export interface NatsCluster {
  readonly nodes: ClusterNode[];
  readonly urls: string[];
  node(name: string): ClusterNode;
  stop(): Promise<void>;
}

/** Resolves once a meta leader is elected. Stop it to remove its stores. */
export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const ports = await freePorts(size * 2);
  const root = mkdtempSync(join(tmpdir(), 'nats-cluster-'));
  const routes = Array.from(
    { length: size },
    (_, i) => `nats-route://127.0.0.1:${ports[size + i]}`,
  );
  const env = { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/usr/local/sbin` };

  const nodes = Array.from({ length: size }, (_, i) => {
    const name = `n${i + 1}`;
    const [port, clusterPort] = [ports[i], ports[size + i]];
    const config = join(root, `${name}.conf`);
    writeFileSync(
      config,
      [
        `server_name: ${name}`,
        `listen: 127.0.0.1:${port}`,
        `jetstream { store_dir: "${join(root, name)}" }`,
        `cluster { name: rollout-test, listen: 127.0.0.1:${clusterPort}, routes: [${routes.join(', ')}] }`,
      ].join('\n'),
    );
    let child: ChildProcess | undefined;
    const node = {
      name,
      url: `nats://127.0.0.1:${port}`,
      async restart() {
        child = spawn('nats-server', ['-c', config], { stdio: 'ignore', env });
        await eventually(async () => ((await portOpen(port)) ? true : undefined), {
          what: `${name} listening`,
        });
      },
      async kill() {
        const dying = child;
        child = undefined;
        if (!dying || dying.exitCode !== null) return;
        dying.kill('SIGKILL');
        await once(dying, 'exit');
      },
    };
    return node;
  });
  await Promise.all(nodes.map((node) => node.restart()));
  const urls = nodes.map((node) => node.url);
  const nc = await connect({ servers: urls });
  try {
    await eventually(() => nc.jetstreamManager().then((jsm) => jsm.getAccountInfo()), {
      timeoutMs: 20_000,
      intervalMs: 250,
      what: 'a JetStream meta leader',
    });
  } finally {
    await nc.close();
  }
  return {
    nodes,
    urls,
    node: (name) => {
      const found = nodes.find((node) => node.name === name);
      if (!found) throw new Error(`no node ${name} in the cluster`);
      return found;
    },
    async stop() {
      await Promise.all(nodes.map((node) => node.kill()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
