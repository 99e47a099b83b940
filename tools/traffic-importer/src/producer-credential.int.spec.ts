import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXPERIMENT_STATE_BUCKET, STATE_POSITION_KEY, policyStateKey } from '@rollout/contracts';
import { BusUser, natsAuthorizationConfig } from '@rollout/provision';
import { NatsNamespace, inboxPrefixOf } from '@rollout/platform/nats';
import { NatsServer, startNatsServer } from '@rollout/testing/kit';
import { Empty, NatsConnection, NatsError, connect } from 'nats';
import { declareImporterBus, eventsOn, putLivePolicies, runCli } from '../test/importer-world';

/**
 * The policy check with a traffic producer's own credential, on a NATS server with the
 * deployed permissions: it may read its projects' policy keys in the state bucket (so the
 * check works), and no other project's, no experiment, not the relay's position key (which
 * moves with every project's changes), nor any key through the body-form get.
 */
jest.setTimeout(120_000);

const USERS: BusUser[] = [
  { user: 'admin', password: 'admin-pass', role: { kind: 'admin' } },
  {
    user: 'producer-acme',
    password: 'producer-pass',
    role: { kind: 'traffic-producer', projects: ['acme'] },
  },
];
const ns = new NatsNamespace();
const bucket = ns.bucket(EXPERIMENT_STATE_BUCKET);
const stream = `KV_${bucket}`;

describe('the policy check with a traffic producer credential', () => {
  let server: NatsServer;
  let admin: NatsConnection;
  let producer: NatsConnection;
  let dir: string;

  beforeAll(async () => {
    server = await startNatsServer(natsAuthorizationConfig(USERS));
    admin = await connect({ servers: server.url, user: 'admin', pass: 'admin-pass' });
    await declareImporterBus(admin, ns);
    await putLivePolicies(admin, ns, 'acme', ['edge']);
    await putLivePolicies(admin, ns, 'beta', ['secret']);
    producer = await connect({
      servers: server.url,
      user: 'producer-acme',
      pass: 'producer-pass',
      inboxPrefix: inboxPrefixOf('producer-acme'),
    });
    dir = await mkdtemp(join(tmpdir(), 'traffic-producer-'));
  });

  afterAll(async () => {
    await producer?.close();
    await admin?.close();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const importAs = async (policy: string) => {
    const path = join(dir, `${policy}.log`);
    await writeFile(
      path,
      '#fields\tts\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto\n1591367999.1\t203.0.113.9\t40001\t10.0.0.1\t443\ttcp\n',
    );
    return runCli(['--format', 'zeek', '--project', 'acme', '--policy', policy, path], {
      NATS_URL: server.url,
      NATS_USER: 'producer-acme',
      NATS_PASSWORD: 'producer-pass',
      NATS_NAMESPACE: '',
      XDG_STATE_HOME: join(dir, 'state'),
    });
  };

  it('passes for its project’s live policy and refuses another, without listing (a list needs a consumer it may not create: the server logs that try)', async () => {
    const live = await importAs('edge');
    expect({ code: live.code, stdout: live.stdout }).toEqual({
      code: 0,
      stdout: expect.stringContaining('1 events published'),
    });
    expect(await eventsOn(admin, ns, 'edge')).toHaveLength(1);
    // The check and the import needed nothing the credential may not do.
    expect(server.log()).not.toContain('Violation - User "producer-acme"');

    const typo = await importAs('edgee');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('project "acme" (location global) has no live policy "edgee"');
    expect(typo.stderr).not.toContain('Its live policies');
    // The check of a missing policy reads nothing more than the policy's key.
    expect(server.log()).not.toContain('Violation - User "producer-acme", Subject "$JS.API.DIRECT');
  });

  it('may not read another project’s policy, an experiment, the relay’s position, or any key by the body-form get', async () => {
    const get = (subject: string, body: Uint8Array = Empty) =>
      producer.request(subject, body, { timeout: 5_000 }).then(
        () => 'read',
        (error: unknown) => (error instanceof NatsError ? error.code : String(error)),
      );
    const keyed = (key: string) => `$JS.API.DIRECT.GET.${stream}.$KV.${bucket}.${key}`;
    expect(await get(keyed(policyStateKey('acme', 'global', 'edge')))).toBe('read');
    expect(await get(keyed(policyStateKey('beta', 'global', 'secret')))).toBe(
      'PERMISSIONS_VIOLATION',
    );
    expect(await get(keyed('experiment.v1.experiment.acme.global.edge.x'))).toBe(
      'PERMISSIONS_VIOLATION',
    );
    expect(await get(keyed(STATE_POSITION_KEY))).toBe('PERMISSIONS_VIOLATION');
    expect(await get(`$JS.API.DIRECT.GET.${stream}`, new TextEncoder().encode('{"seq":1}'))).toBe(
      'PERMISSIONS_VIOLATION',
    );
    expect(
      await get(`$JS.API.STREAM.MSG.GET.${stream}`, new TextEncoder().encode('{"seq":1}')),
    ).toBe('PERMISSIONS_VIOLATION');
  });
});
