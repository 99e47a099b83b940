import {
  ACTOR_ASSERTION_HEADER,
  ActorClaims,
  EXPERIMENT_SUBJECTS,
  StatusError,
} from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { headers as natsHeaders } from 'nats';
import {
  ActorAssertionSigner,
  ActorAssertionVerifier,
  generateBusKeyPair,
  parseBusKey,
} from './actor-assertion';
import { ActorAssertionGate, projectsNamedIn } from './actor-gate';

const key = (text: string) => parseBusKey(text)!;
const payload = (data: unknown) =>
  new TextEncoder().encode(JSON.stringify({ pattern: 's', data, id: '1' }));
const alice: ActorClaims = {
  actor: 'alice',
  roles: ['editor'],
  projects: ['acme'],
  requestId: 'req-1',
};

let now = 1_700_000_000_000;

function setup(ttlMs = 10_000) {
  const pair = generateBusKeyPair('k1');
  const signer = new ActorAssertionSigner(key(pair.signingKey), ttlMs, () => now);
  const verifier = new ActorAssertionVerifier([key(pair.verifyKey)], {
    maxTtlMs: 60_000,
    clockSkewMs: 5_000,
    now: () => now,
  });
  return { signer, verifier, pair, advance: (ms: number) => (now += ms) };
}

function reasonOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).status).toBe('PERMISSION_DENIED');
    return JSON.stringify((error as StatusError).details);
  }
  return undefined;
}

describe('actor assertion', () => {
  it('carries the claims of the request it was signed for', () => {
    const { signer, verifier } = setup();
    const body = payload({ name: 'projects/acme/x' });
    expect(
      verifier.verify(
        'experiment.v1.policies.get',
        body,
        signer.sign('experiment.v1.policies.get', body, alice),
      ),
    ).toMatchObject({ ...alice, kid: 'k1', sub: 'experiment.v1.policies.get' });
  });

  it('is refused when missing, malformed, from an unknown key, signed by another key, or edited', () => {
    const { signer, verifier } = setup();
    const body = payload({});
    const good = signer.sign('s', body, alice);
    const forger = new ActorAssertionSigner(key(generateBusKeyPair('k1').signingKey), 10_000);
    const [claims, signature] = good.split('.');
    const edited = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(claims, 'base64url').toString()), projects: '*' }),
    ).toString('base64url');
    expect(reasonOf(() => verifier.verify('s', body, undefined))).toContain(
      'ACTOR_ASSERTION_MISSING',
    );
    expect(reasonOf(() => verifier.verify('s', body, 'not an assertion'))).toContain(
      'ACTOR_ASSERTION_MALFORMED',
    );
    expect(
      reasonOf(() =>
        verifier.verify(
          's',
          body,
          new ActorAssertionSigner(key(generateBusKeyPair('k9').signingKey), 10_000).sign(
            's',
            body,
            alice,
          ),
        ),
      ),
    ).toContain('ACTOR_ASSERTION_UNKNOWN_KEY');
    expect(reasonOf(() => verifier.verify('s', body, forger.sign('s', body, alice)))).toContain(
      'ACTOR_ASSERTION_BAD_SIGNATURE',
    );
    expect(reasonOf(() => verifier.verify('s', body, `${edited}.${signature}`))).toContain(
      'ACTOR_ASSERTION_BAD_SIGNATURE',
    );
  });

  it('is good for one subject and one payload', () => {
    const { signer, verifier } = setup();
    const assertion = signer.sign(
      'experiment.v1.policies.get',
      payload({ name: 'projects/acme/x' }),
      alice,
    );
    expect(
      reasonOf(() =>
        verifier.verify(
          'experiment.v1.policies.delete',
          payload({ name: 'projects/acme/x' }),
          assertion,
        ),
      ),
    ).toContain('ACTOR_ASSERTION_OTHER_REQUEST');
    expect(
      reasonOf(() =>
        verifier.verify(
          'experiment.v1.policies.get',
          payload({ name: 'projects/other/x' }),
          assertion,
        ),
      ),
    ).toContain('ACTOR_ASSERTION_OTHER_REQUEST');
  });

  it('is refused once expired, and when it claims to live longer than services accept', () => {
    const { signer, verifier, advance } = setup();
    const body = payload({});
    const assertion = signer.sign('s', body, alice);
    advance(10_000 + 5_000);
    expect(reasonOf(() => verifier.verify('s', body, assertion))).toContain(
      'ACTOR_ASSERTION_EXPIRED',
    );
    const longLived = setup(120_000);
    expect(
      reasonOf(() => longLived.verifier.verify('s', body, longLived.signer.sign('s', body, alice))),
    ).toContain('ACTOR_ASSERTION_EXPIRED');
  });

  it('accepts every key it is given by key id, so the gateway can rotate', () => {
    const [old, next] = [generateBusKeyPair('2025-01'), generateBusKeyPair('2025-07')];
    const verifier = new ActorAssertionVerifier([key(old.verifyKey), key(next.verifyKey)], {
      maxTtlMs: 60_000,
      clockSkewMs: 5_000,
    });
    const body = payload({});
    for (const pair of [old, next]) {
      expect(
        verifier.verify(
          's',
          body,
          new ActorAssertionSigner(key(pair.signingKey), 10_000).sign('s', body, alice),
        ).kid,
      ).toBe(pair.signingKey.split(':')[0]);
    }
  });

  it("lets a service's system key stop a preview as that service, and assert nothing else", () => {
    // Given the gateway's key and the evaluator's system key, trusted by a service in namespace t1.
    const [gateway, evaluator, stranger] = [
      generateBusKeyPair('gw'),
      generateBusKeyPair('system.evaluator.2026'),
      generateBusKeyPair('system.unknown'),
    ];
    const namespace = new NatsNamespace('t1');
    const verifier = new ActorAssertionVerifier(
      [gateway, evaluator, stranger].map((pair) => key(pair.verifyKey)),
      { maxTtlMs: 60_000, clockSkewMs: 5_000, namespace },
    );
    const stop = namespace.subject(EXPERIMENT_SUBJECTS.stopPreview);
    const commit = namespace.subject(EXPERIMENT_SUBJECTS.commit);
    const system: ActorClaims = {
      actor: 'system:evaluator',
      roles: ['editor'],
      projects: ['acme'],
    };
    const attempt = (pair: { signingKey: string }, subject: string, claims: ActorClaims) => () => {
      const body = payload({});
      return verifier.verify(
        subject,
        body,
        new ActorAssertionSigner(key(pair.signingKey), 10_000).sign(subject, body, claims),
      );
    };
    // Then its own actor on stopPreview is admitted; another actor, another subject or an unknown system key is not.
    expect(attempt(evaluator, stop, system)().actor).toBe('system:evaluator');
    expect(reasonOf(attempt(evaluator, stop, alice))).toContain('ACTOR_ASSERTION_KEY_SCOPE');
    expect(reasonOf(attempt(evaluator, commit, system))).toContain('ACTOR_ASSERTION_KEY_SCOPE');
    expect(reasonOf(attempt(evaluator, EXPERIMENT_SUBJECTS.stopPreview, system))).toContain(
      'ACTOR_ASSERTION_KEY_SCOPE',
    );
    expect(reasonOf(attempt(stranger, stop, system))).toContain('ACTOR_ASSERTION_KEY_SCOPE');
    // And the gateway's key still asserts anyone, anywhere.
    expect(attempt(gateway, commit, alice)().actor).toBe('alice');
  });

  it('keys parse only in their environment form', () => {
    expect(parseBusKey(generateBusKeyPair('k1').verifyKey)).toBeDefined();
    for (const bad of ['', 'k1', ':abc', 'k1:short', `k 1:${'A'.repeat(43)}`])
      expect(parseBusKey(bad)).toBeUndefined();
  });
});

describe('actor gate', () => {
  function gated(claims: ActorClaims, data: unknown) {
    const { signer, verifier } = setup();
    const body = payload(data);
    const headers = natsHeaders();
    headers.set(ACTOR_ASSERTION_HEADER, signer.sign('s', body, claims));
    return () =>
      new ActorAssertionGate(verifier).admit({ subject: 's', headers, payload: body, data });
  }

  it('refuses an assertion the second time it arrives, for as long as it is valid', () => {
    const { signer, verifier, advance } = setup();
    const gate = new ActorAssertionGate(verifier, { now: () => now });
    const body = payload({});
    const headers = natsHeaders();
    headers.set(ACTOR_ASSERTION_HEADER, signer.sign('s', body, alice));
    const admit = () => gate.admit({ subject: 's', headers, payload: body, data: {} });
    expect(reasonOf(admit)).toBeUndefined();
    expect(reasonOf(admit)).toContain('ACTOR_ASSERTION_REPLAYED');
    advance(9_000);
    expect(reasonOf(admit)).toContain('ACTOR_ASSERTION_REPLAYED');
  });

  it("remembers a state-changing request's assertion id in the shared memory, a read's in its own", async () => {
    const { signer, verifier } = setup();
    const namespace = new NatsNamespace('t1');
    const shared: string[] = [];
    const gate = new ActorAssertionGate(verifier, {
      namespace,
      now: () => now,
      sharedIds: { firstUse: async (jti) => !shared.includes(jti) && shared.push(jti) > 0 },
    });
    const request = (subject: string) => {
      const body = payload({});
      const headers = natsHeaders();
      headers.set(ACTOR_ASSERTION_HEADER, signer.sign(subject, body, alice));
      return { subject, headers, payload: body, data: {} };
    };
    const stop = request(namespace.subject(EXPERIMENT_SUBJECTS.stopPreview));
    const get = request(namespace.subject(EXPERIMENT_SUBJECTS.getPolicy));
    await gate.admit(stop);
    expect(gate.admit(get)).toBeUndefined();
    expect(shared).toHaveLength(1);
    await expect(gate.admit(stop)).rejects.toMatchObject({
      status: 'PERMISSION_DENIED',
      message: "The request's actor assertion was used before.",
    });
  });

  it('admits the asserted actor on its own projects, and an admin on any', () => {
    expect(
      reasonOf(gated(alice, { parent: 'projects/acme/locations/global', actor: 'alice' })),
    ).toBeUndefined();
    expect(reasonOf(gated({ ...alice, projects: '*' }, { project: 'zeta' }))).toBeUndefined();
  });

  it('refuses a request naming another actor or a project the actor does not have', () => {
    expect(reasonOf(gated(alice, { name: 'projects/acme/x', actor: 'mallory' }))).toContain(
      'ACTOR_MISMATCH',
    );
    for (const data of [
      { project: 'zeta' },
      { name: 'projects/zeta/locations/global/firewallPolicies/f' },
      { parent: 'projects/zeta/locations/global' },
      { context: { project_id: 'zeta' } },
    ]) {
      expect(reasonOf(gated(alice, data))).toContain('PROJECT_NOT_ASSERTED');
    }
  });

  it('reads projects wherever the contracts put them', () => {
    expect(
      projectsNamedIn({
        project: 'a',
        name: 'projects/b/locations/l',
        parent: 'projects/c',
        context: { project_id: 'd' },
      }),
    ).toEqual(['a', 'b', 'c', 'd']);
    expect(projectsNamedIn({ name: 'operations/123', uuid: 'r1' })).toEqual([]);
    expect(projectsNamedIn('text')).toEqual([]);
  });
});
