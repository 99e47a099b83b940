/**
 * A stand-in for the launcher in the int tests: starts one dependency the way the launcher
 * does, prints `{"pids": [...]}` on one line, then idles until it is killed (the tests kill
 * it with SIGKILL to prove that what it started does not outlive it).
 *
 * argv: nats <port> | postgres <port>
 */
import { commandOnPath } from '../processes';
import { startNatsServer } from '../nats';
import { startEmbeddedPostgres } from '../postgres';

async function main(): Promise<void> {
  const [kind, port] = process.argv.slice(2);
  const options = { log: () => undefined, stopTimeoutMs: 5_000 };
  const started =
    kind === 'nats'
      ? await startNatsServer(
          commandOnPath('nats-server') ?? 'nats-server',
          '127.0.0.1',
          Number(port),
          options,
        )
      : await startEmbeddedPostgres('127.0.0.1', Number(port), 'postgres', options);
  process.stdout.write(`${JSON.stringify({ pids: started.pids() })}\n`);
  setInterval(() => undefined, 60_000);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
