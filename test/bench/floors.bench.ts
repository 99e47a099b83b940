/**
 * What the platform costs with nothing to do: request rate and server CPU per request of empty
 * handlers (node:http, NestJS on Express, NestJS on Fastify), then of handlers making one NATS
 * request each (the gateway → service hop). Same client and load as the other HTTP benches:
 * these are ceilings no real route can beat.
 *
 *   npm run bench -- test/bench/floors.bench.ts   (BENCH_SECONDS, BENCH_CLIENTS)
 */
import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { closedLoop, cpuPerRequest, describeLoad, httpClient, out, stop } from './support';
import { freePort, uniqueName } from '@rollout/testing/kit';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const RUN = uniqueName('floor');

async function startFloor(kind: string, port = 0): Promise<ChildProcess> {
  const child = fork(join(__dirname, 'floor-server.ts'), [kind], {
    execArgv: ['-r', '@swc-node/register'],
    env: { ...process.env, PORT: String(port), FLOOR_RUN: RUN },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`floor server ${kind} exited with ${code}`)));
  });
  return child;
}

async function main(): Promise<void> {
  out(`empty handlers (${CLIENTS} clients, ${SECONDS} s each); CPU is the server's, per request`);
  const responder = await startFloor('responder');
  try {
    for (const kind of ['node', 'express', 'fastify', 'express-nats', 'fastify-nats']) {
      const port = await freePort();
      const server = await startFloor(kind, port);
      const client = httpClient(`http://127.0.0.1:${port}`, 'unused', CLIENTS);
      try {
        await closedLoop(CLIENTS, 1, () => client.call('GET', '/floor'), 200); // warm-up
        const processes = kind.endsWith('-nats') ? [server, responder] : [server];
        const { result, cpuMs } = await cpuPerRequest(processes, () =>
          closedLoop(CLIENTS, SECONDS, () => client.call('GET', '/floor'), 200),
        );
        const responderCpu = cpuMs[1] === undefined ? '' : `, responder ${cpuMs[1].toFixed(3)} ms`;
        out(
          `  ${kind.padEnd(12)} ${describeLoad(result, 'requests')}; CPU ${cpuMs[0].toFixed(3)} ms${responderCpu}`,
        );
      } finally {
        client.destroy();
        await stop(server);
      }
    }
  } finally {
    await stop(responder);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
