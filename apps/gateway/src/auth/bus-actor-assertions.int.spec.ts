import {
  ENFORCEMENT_SUBJECTS,
  EXPERIMENT_SUBJECTS,
  INSPECTION_RULES_SUBJECTS,
  PREVIEW_SUBJECTS,
  ACTOR_ASSERTION_HEADER,
  ASSERTION_IDS_KV,
} from '@rollout/contracts';
import { kvStream, kvSubject } from '@rollout/platform/nats';
import { generateBusKeyPair } from '@rollout/platform/bus-security';
import { Msg, MsgHdrs, NatsConnection, NatsError, headers as natsHeaders } from 'nats';
import { randomUUID } from 'node:crypto';
import {
  ACME_EDITOR,
  ACME_TOKEN,
  KEYS,
  busSecuritySystem,
  codec,
  hostLease,
  policyName,
  policyPath,
} from '../../test/bus-security-system';
import { rawRequest, signedAs, signer } from '../../test/bus-raw-requests';
import { allowSsh } from '../../test/bus-traffic';

// Requests sent straight onto the bus with forged, replayed, expired or mis-signed actor
// assertions are refused by every service and change nothing, whatever NATS lets through.
const { call, callOk, connectAs } = busSecuritySystem();

const denied = (reply: { err?: { status: string; details?: unknown[] } }, reason: string) => {
  expect(reply.err?.status).toBe('PERMISSION_DENIED');
  expect(JSON.stringify(reply.err?.details)).toContain(reason);
};

describe('actor assertions, checked by every service whatever NATS lets through', () => {
  let operator: NatsConnection;
  let captured: Msg;
  let etag: string;

  beforeAll(async () => {
    operator = await connectAs('admin');
    // What a refused request must leave in place: a lease and an inspection rule.
    await callOk('POST', '/v1/projects/acme/leases?leaseId=l1', hostLease('l1'), ACME_TOKEN);
    await callOk('POST', '/v1/inspection_rules', { actions: [{ op: 'log', args: ['seen'] }] });
    expect(
      (
        await call(
          'POST',
          `/v1/projects/acme/locations/global/firewallPolicies?firewallPolicyId=guarded`,
          { rules: [] },
          ACME_TOKEN,
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await call(
          'POST',
          `/v1/projects/beta/locations/global/firewallPolicies?firewallPolicyId=guarded`,
          { rules: [] },
        )
      ).status,
    ).toBe(200);
    // The operator sees a genuine request on its way (as someone able to read the bus would) and keeps it.
    const watch = operator.subscribe(EXPERIMENT_SUBJECTS.updatePolicy, { max: 1 });
    await operator.flush();
    expect(
      (
        await call(
          'PATCH',
          `${policyPath('acme', 'guarded')}?updateMask=rules`,
          { rules: [allowSsh] },
          ACME_TOKEN,
        )
      ).status,
    ).toBe(200);
    for await (const message of watch) captured = message;
    etag = (await call('GET', policyPath('acme', 'guarded'))).body.etag;
  });

  const unchanged = async () => {
    expect((await call('GET', policyPath('acme', 'guarded'))).body.etag).toBe(etag);
    expect((await call('GET', policyPath('beta', 'guarded'))).status).toBe(200);
  };
  const deleteAcme = { name: policyName('acme', 'guarded'), actor: 'acme-editor' };

  it('refuses a request without an assertion, on every service', async () => {
    denied(
      await rawRequest(operator, EXPERIMENT_SUBJECTS.deletePolicy, deleteAcme),
      'ACTOR_ASSERTION_MISSING',
    );
    denied(
      await rawRequest(operator, PREVIEW_SUBJECTS.previewReport, {
        name: `${policyName('acme', 'edge')}/experiments/preview`,
      }),
      'ACTOR_ASSERTION_MISSING',
    );
    denied(
      await rawRequest(operator, ENFORCEMENT_SUBJECTS.deleteLease, {
        project: 'acme',
        leaseId: 'l1',
        actor: 'acme-editor',
      }),
      'ACTOR_ASSERTION_MISSING',
    );
    denied(
      await rawRequest(operator, INSPECTION_RULES_SUBJECTS.deleteAll, { actor: 'acme-editor' }),
      'ACTOR_ASSERTION_MISSING',
    );
    await unchanged();
    expect((await call('GET', '/v1/projects/acme/leases/l1')).status).toBe(200);
    expect(
      (await call('GET', '/v1/inspection_rules')).body.inspection_rules.length,
    ).toBeGreaterThan(0);
  });

  it('refuses a forged, mis-signed or expired assertion', async () => {
    const forger = signer(generateBusKeyPair('test-1').signingKey);
    denied(
      await rawRequest(
        operator,
        EXPERIMENT_SUBJECTS.deletePolicy,
        deleteAcme,
        signedAs({ ...ACME_EDITOR, projects: '*' }, forger),
      ),
      'ACTOR_ASSERTION_BAD_SIGNATURE',
    );
    denied(
      await rawRequest(
        operator,
        EXPERIMENT_SUBJECTS.deletePolicy,
        deleteAcme,
        signedAs(ACME_EDITOR, signer(generateBusKeyPair('other').signingKey)),
      ),
      'ACTOR_ASSERTION_UNKNOWN_KEY',
    );
    denied(
      await rawRequest(
        operator,
        EXPERIMENT_SUBJECTS.deletePolicy,
        deleteAcme,
        signedAs(
          ACME_EDITOR,
          signer(KEYS.signingKey, () => Date.now() - 120_000),
        ),
      ),
      'ACTOR_ASSERTION_EXPIRED',
    );
    await unchanged();
  });

  it('refuses a genuine assertion replayed, or moved onto another request', async () => {
    const replay = codec.decode(
      (
        await operator.request(captured.subject, captured.data, {
          timeout: 10_000,
          headers: captured.headers as MsgHdrs,
        })
      ).data,
    ) as { err?: { status: string; details?: unknown[] } };
    denied(replay, 'ACTOR_ASSERTION_REPLAYED');
    denied(
      await rawRequest(operator, EXPERIMENT_SUBJECTS.deletePolicy, deleteAcme, () =>
        captured.headers!.get(ACTOR_ASSERTION_HEADER),
      ),
      'ACTOR_ASSERTION_OTHER_REQUEST',
    );
    await unchanged();
  });

  it('refuses a valid assertion naming a project the actor does not have, or another actor', async () => {
    denied(
      await rawRequest(
        operator,
        EXPERIMENT_SUBJECTS.deletePolicy,
        { name: policyName('beta', 'guarded'), actor: 'acme-editor' },
        signedAs(ACME_EDITOR),
      ),
      'PROJECT_NOT_ASSERTED',
    );
    denied(
      await rawRequest(
        operator,
        EXPERIMENT_SUBJECTS.deletePolicy,
        { ...deleteAcme, actor: 'operator' },
        signedAs(ACME_EDITOR),
      ),
      'ACTOR_MISMATCH',
    );
    await unchanged();
    // The same key and actor on its own project is served: the refusals above are the checks, not the key.
    expect(
      (
        await rawRequest(
          operator,
          EXPERIMENT_SUBJECTS.getPolicy,
          { name: policyName('acme', 'guarded') },
          signedAs(ACME_EDITOR),
        )
      ).err,
    ).toBeUndefined();
  });
});

// The replay memory (ASSERTION_IDS) with the four verifying services' own credentials, the only
// ones that may write it: each write that would reopen, wipe or fill it is refused by the
// server, and a command served before is still refused as a replay after each.
describe('the shared replay memory, attacked by every service credential', () => {
  const SERVICES = [
    'experiment-service',
    'evaluator',
    'enforcement-service',
    'inspection-rules-service',
  ];
  const stream = kvStream(ASSERTION_IDS_KV.bucket);
  const key = (id: string) => kvSubject(ASSERTION_IDS_KV.bucket, id);
  let operator: NatsConnection;
  /** A command served once: its subject, exact bytes and assertion. */
  let served: { subject: string; payload: Uint8Array; assertion: string; jti: string };

  const replay = async () =>
    codec.decode(
      (
        await operator.request(served.subject, served.payload, {
          timeout: 10_000,
          headers: (() => {
            const h = natsHeaders();
            h.set(ACTOR_ASSERTION_HEADER, served.assertion);
            return h;
          })(),
        })
      ).data,
    ) as { err?: { status: string; details?: unknown[] } };

  /** What the server answers a JetStream publish: its error, or "stored". */
  const outcome = async (write: () => Promise<unknown>) => {
    try {
      await write();
      return 'stored';
    } catch (error) {
      if (error instanceof NatsError) return error.api_error?.description ?? error.code;
      return error instanceof Error ? error.message : String(error);
    }
  };

  beforeAll(async () => {
    operator = await connectAs('admin');
    // A lease deletion for a lease that does not exist: the gate records its id, then the handler answers NOT_FOUND.
    const subject = ENFORCEMENT_SUBJECTS.deleteLease;
    const payload = codec.encode({
      pattern: subject,
      data: { project: 'acme', leaseId: 'never', actor: 'acme-editor' },
      id: randomUUID(),
    });
    const assertion = signedAs(ACME_EDITOR)(subject, payload);
    const claims = JSON.parse(Buffer.from(assertion.split('.')[0], 'base64url').toString()) as {
      jti: string;
    };
    served = { subject, payload, assertion, jti: claims.jti };
    const first = await replay();
    expect(first.err?.status).toBe('NOT_FOUND');
    denied(await replay(), 'ACTOR_ASSERTION_REPLAYED');
  });

  it('is declared write-once: no rollup, delete or purge, one entry per key, an empty value, a byte bound', async () => {
    const { config } = await (await operator.jetstreamManager()).streams.info(stream);
    expect(config).toMatchObject({
      allow_rollup_hdrs: false,
      deny_delete: true,
      deny_purge: true,
      max_msgs_per_subject: 1,
      discard: 'new',
      discard_new_per_subject: true,
      max_msg_size: ASSERTION_IDS_KV.writeOnce!.maxMsgSize,
      max_bytes: ASSERTION_IDS_KV.writeOnce!.maxBytes,
      max_msgs: ASSERTION_IDS_KV.writeOnce!.maxMsgs,
    });
  });

  it.each(SERVICES)(
    '%s: a rollup, a delete marker, a purge marker, the purge API, an overwrite and a 1 KiB value are refused, and the replay still is after each',
    async (user) => {
      const nc = await connectAs(user);
      const js = nc.jetstream();
      const withHeaders = (entries: [string, string][]) => {
        const h = natsHeaders();
        for (const [name, value] of entries) h.set(name, value);
        return h;
      };
      const attempts: [string, () => Promise<unknown>][] = [
        [
          'rollup of the whole bucket',
          () =>
            js.publish(key(randomUUID()), '', { headers: withHeaders([['Nats-Rollup', 'all']]) }),
        ],
        [
          'rollup of the served key',
          () => js.publish(key(served.jti), '', { headers: withHeaders([['Nats-Rollup', 'sub']]) }),
        ],
        [
          'delete marker on the served key',
          () =>
            js.publish(key(served.jti), '', { headers: withHeaders([['KV-Operation', 'DEL']]) }),
        ],
        [
          'purge marker on the served key',
          () =>
            js.publish(key(served.jti), '', {
              headers: withHeaders([
                ['KV-Operation', 'PURGE'],
                ['Nats-Rollup', 'sub'],
              ]),
            }),
        ],
        ['purge API', () => nc.request(`$JS.API.STREAM.PURGE.${stream}`, '{}', { timeout: 5_000 })],
        ['an overwrite of the served key', () => js.publish(key(served.jti), '')],
        ['a 1 KiB value', () => js.publish(key(randomUUID()), new Uint8Array(1024))],
      ];
      const results: Record<string, string> = {};
      for (const [what, attempt] of attempts) {
        results[what] = await outcome(attempt);
        denied(await replay(), 'ACTOR_ASSERTION_REPLAYED');
      }
      expect(results).toEqual({
        'rollup of the whole bucket': 'rollup not permitted',
        'rollup of the served key': 'rollup not permitted',
        'delete marker on the served key': 'maximum messages per subject exceeded',
        'purge marker on the served key': 'rollup not permitted',
        'purge API': 'PERMISSIONS_VIOLATION',
        'an overwrite of the served key': 'maximum messages per subject exceeded',
        'a 1 KiB value': 'message size exceeds maximum allowed',
      });
    },
    60_000,
  );
});
