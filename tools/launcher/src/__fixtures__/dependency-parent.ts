/** Starts one dependency as the launcher does, prints its pids, then idles until SIGKILLed (argv: nats|postgres <port>). */
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
