import {
  AnswerNames1767200000000,
  CreateEventStore1764000000000,
  EventStore,
} from '@rollout/platform/event-store';
import { openDataSource } from '@rollout/platform/postgres';
import { TEST_POSTGRES_URL, uniqueName } from '@rollout/testing/kit';
import type { DataSource, MigrationInterface } from 'typeorm';
import { operationName } from '../aggregates/operation';
import { CreateReadModels1764000000001 } from './1764000000001-read-models';
import { ExperimentAnalysis1767100000000 } from './1767100000000-experiment-analysis';
import { OneAnswerRecord1767200000001 } from './1767200000001-one-answer-record';

const schema = uniqueName('it_');
const before = [
  CreateEventStore1764000000000,
  CreateReadModels1764000000001,
  ExperimentAnalysis1767100000000,
];
const operation = (id: string) => ({
  name: `operations/00000000-0000-0000-0000-00000000000${id}`,
  done: true,
  response: { '@type': 'type.googleapis.com/google.protobuf.Empty' },
});
const open = (migrations: (new () => MigrationInterface)[]) =>
  openDataSource({
    url: TEST_POSTGRES_URL,
    schema,
    poolSize: 2,
    applicationName: 'answer-migration-test',
    migrations,
  });
let upgraded: DataSource;

afterAll(async () => {
  await upgraded.query(`DROP SCHEMA "${schema}" CASCADE`);
  await upgraded.destroy();
});

describe('upgrading to one answer record', () => {
  it('keeps every first answer: a retried request gets it, and GET finds every Operation by its name', async () => {
    const old = await open(before);
    const [asked, alone] = [operation('1'), operation('2')];
    const policy = { name: 'projects/p/locations/global/firewallPolicies/a', etag: 'e' };
    // As the previous release kept them: an Operation in `operations`, and again under its request id.
    await old.query(`INSERT INTO operations (name, operation) VALUES ($1, $2), ($3, $4)`, [
      asked.name,
      JSON.stringify(asked),
      alone.name,
      JSON.stringify(alone),
    ]);
    await old.query(
      `INSERT INTO idempotent_requests (request_id, response) VALUES ('asked-1', $1), ('policy-1', $2)`,
      [JSON.stringify(asked), JSON.stringify(policy)],
    );
    await old.destroy();

    upgraded = await open([...before, AnswerNames1767200000000, OneAnswerRecord1767200000001]);
    const store = new EventStore(upgraded, { answerName: operationName });

    expect(await store.previousResponse('asked-1')).toEqual(asked);
    expect(await store.previousResponse('policy-1')).toEqual(policy);
    expect(await store.answerNamed(asked.name)).toEqual(asked);
    expect(await store.answerNamed(alone.name)).toEqual(alone);
    const [{ n }] = await upgraded.query(
      `SELECT count(*)::integer AS n FROM idempotent_requests WHERE response ->> 'name' = $1`,
      [asked.name],
    );
    expect(n).toBe(1);
  });
});
