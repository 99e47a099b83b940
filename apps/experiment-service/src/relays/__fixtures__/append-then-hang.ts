/**
 * A stand-in for an experiment-service that dies between append and publish: it commits
 * a live policy's creation to the event store, says so on stdout, and hangs until killed.
 * argv: <postgres url> <schema> <policy name>
 */
import { CreateEventStore1764000000000, EventStore } from '@rollout/platform/event-store';
import { openDataSource } from '@rollout/platform/postgres';
import { CreateReadModels1764000000001 } from '../../migrations/1764000000001-read-models';

async function main() {
  const [url, schema, name] = process.argv.slice(2);
  const dataSource = await openDataSource({
    url,
    schema,
    poolSize: 2,
    applicationName: 'doomed',
    migrations: [CreateEventStore1764000000000, CreateReadModels1764000000001],
  });
  const time = new Date().toISOString();
  const state = { name, rules: [], etag: 'x', createTime: time, updateTime: time };
  await new EventStore(dataSource).transaction((tx) =>
    tx.appendAtomically(name, 0, [
      {
        type: 'PolicyCreated',
        data: { content: { rules: [] }, time },
        metadata: { actor: 'doomed' },
        state: JSON.stringify(state),
      },
    ]),
  );
  process.stdout.write('appended\n');
  setInterval(() => undefined, 1_000);
}

void main();
