import { JetStreamService, busNeedsOf } from '@rollout/contracts';
import { natsAuthorizationConfig } from './authorization-config';
import { busPermissions } from './bus-permissions';

const SERVICES: JetStreamService[] = [
  'experiment-service',
  'evaluator',
  'inspection-rules-service',
];

describe('bus permissions', () => {
  it('lets a traffic producer publish its projects’ traffic of every major, read its projects’ live policy keys, under the namespace, and nothing else (not the relay’s position key)', () => {
    expect(
      busPermissions(
        { user: 'producer-a', role: { kind: 'traffic-producer', projects: ['acme', 'beta'] } },
        'ns1',
      ),
    ).toEqual({
      publish: {
        allow: [
          'ns1.traffic.*.acme.>',
          'ns1.traffic.*.beta.>',
          '$JS.API.DIRECT.GET.KV_ns1_EXPERIMENT_STATE.$KV.ns1_EXPERIMENT_STATE.experiment.v1.policy.acme.>',
          '$JS.API.DIRECT.GET.KV_ns1_EXPERIMENT_STATE.$KV.ns1_EXPERIMENT_STATE.experiment.v1.policy.beta.>',
        ],
      },
      subscribe: { allow: ['_INBOX_producer-a.>'] },
    });
  });

  it('gives no runtime user a JetStream call that creates, changes or deletes a stream or a consumer', () => {
    const runtime = [
      'gateway',
      'experiment-service',
      'evaluator',
      'enforcement-service',
      'inspection-rules-service',
    ] as const;
    for (const kind of runtime) {
      const allowed = busPermissions({ user: kind, role: { kind } }, 'ns1').publish.allow;
      expect([
        kind,
        allowed.filter((s) => /^\$JS\.API\.STREAM\.(?!INFO\.|MSG\.GET\.)/.test(s)),
      ]).toEqual([kind, []]);
      // Of consumers, only the info of a named durable and the next message from it.
      expect([
        kind,
        allowed.filter((s) => /^\$JS\.API\.CONSUMER\.(?!INFO\.|MSG\.NEXT\.)/.test(s)),
      ]).toEqual([kind, []]);
      expect([kind, allowed.filter((s) => /^\$JS\.API\.CONSUMER\..*\*/.test(s))]).toEqual([
        kind,
        [],
      ]);
      expect([kind, allowed.filter((s) => s.includes('*.*') || s.endsWith('.*.>'))]).toEqual([
        kind,
        [],
      ]);
    }
    expect(busPermissions({ user: 'p', role: { kind: 'provisioner' } }).publish.allow).toEqual([
      '$JS.API.>',
    ]);
  });

  it('lets the evaluator consume TRAFFIC through its durable, read TRAFFIC and the state bucket with direct gets, and never write the state bucket', () => {
    const permissions = busPermissions({ user: 'evaluator', role: { kind: 'evaluator' } }, 'ns1');
    const evaluator = permissions.publish.allow;
    expect(evaluator).toEqual(
      expect.arrayContaining([
        '$JS.API.STREAM.INFO.ns1_TRAFFIC',
        '$JS.API.CONSUMER.INFO.ns1_TRAFFIC.evaluator',
        '$JS.API.CONSUMER.MSG.NEXT.ns1_TRAFFIC.evaluator',
        '$JS.ACK.ns1_TRAFFIC.evaluator.>',
        '$JS.API.DIRECT.GET.ns1_TRAFFIC',
        '$JS.API.DIRECT.GET.KV_ns1_EXPERIMENT_STATE',
      ]),
    );
    expect(permissions.subscribe.allow).toContain('$KV.ns1_EXPERIMENT_STATE.>');
    // Its one KV write is an assertion id (the replay check), never the state bucket.
    expect(evaluator.filter((s) => s.startsWith('$KV.'))).toEqual(['$KV.ns1_ASSERTION_IDS.>']);
    expect(evaluator.filter((s) => /CONSUMER\.(?!INFO\.|MSG\.NEXT\.)/.test(s))).toEqual([]);
    // Of the experiment service, it calls stopPreview only (auto-stop).
    expect(
      evaluator.filter((s) => s.startsWith('ns1.experiment.v1') || s.startsWith('experiment.v1')),
    ).toEqual(['ns1.experiment.v1.experiments.stopPreview']);
    const experiments = busPermissions(
      { user: 'experiment-service', role: { kind: 'experiment-service' } },
      'ns1',
    ).publish.allow;
    expect(experiments).toContain('$KV.ns1_EXPERIMENT_STATE.>');
    expect(experiments.filter((s) => s.includes('CONSUMER'))).toEqual([]);
  });

  it('lets every service that verifies assertions write assertion ids and check the bucket exists, and none declare, read or delete them', () => {
    const kinds = [
      'experiment-service',
      'evaluator',
      'enforcement-service',
      'inspection-rules-service',
    ] as const;
    for (const kind of kinds) {
      const allowed = busPermissions({ user: kind, role: { kind } }, 'ns1').publish.allow;
      expect(allowed.filter((s) => s.includes('ASSERTION_IDS'))).toEqual([
        '$KV.ns1_ASSERTION_IDS.>',
        '$JS.API.STREAM.INFO.KV_ns1_ASSERTION_IDS',
      ]);
    }
    const gateway = busPermissions({ user: 'gateway', role: { kind: 'gateway' } }, 'ns1');
    expect(JSON.stringify(gateway)).not.toContain('ASSERTION_IDS');
  });

  it('refuses names that would widen a subject: wildcards or dots in users, projects or adapters', () => {
    expect(() => busPermissions({ user: 'a.b', role: { kind: 'gateway' } })).toThrow(
      /NATS user "a.b"/,
    );
    expect(() =>
      busPermissions({ user: 'p', role: { kind: 'traffic-producer', projects: ['*'] } }),
    ).toThrow(/projects/);
    expect(() =>
      busPermissions({ user: 'p', role: { kind: 'traffic-producer', projects: [] } }),
    ).toThrow(/projects/);
    expect(() =>
      busPermissions({ user: 'p', role: { kind: 'policy-adapter', adapter: '>' } }),
    ).toThrow(/adapter name/);
  });

  it('writes passwords as given, or as a bare environment reference for nats-server to read', () => {
    const config = natsAuthorizationConfig([
      { user: 'gateway', password: 'pa"ss', role: { kind: 'gateway' } },
      { user: 'agent', password: '$AGENT_NATS_PASSWORD', role: { kind: 'inspection-agent' } },
    ]);
    expect(config).toContain('{ user: "gateway", password: "pa\\"ss", permissions:');
    expect(config).toContain('{ user: "agent", password: $AGENT_NATS_PASSWORD, permissions:');
    expect(() =>
      natsAuthorizationConfig([
        { user: 'agent', password: '$lower; include x', role: { kind: 'inspection-agent' } },
      ]),
    ).toThrow(/\$UPPER_CASE_NAME/);
  });

  it("lets each service's NATS user check what the bus topology says it needs at boot", () => {
    for (const service of SERVICES) {
      const allowed = busPermissions({ user: service, role: { kind: service } }, 'ns1').publish
        .allow;
      const needs = busNeedsOf(service);
      const wanted = [
        ...needs.streams.map((s) => `$JS.API.STREAM.INFO.ns1_${s}`),
        ...needs.buckets.map((b) => `$JS.API.STREAM.INFO.KV_ns1_${b}`),
        ...needs.consumers.flatMap(({ stream, durable }) => [
          `$JS.API.CONSUMER.INFO.ns1_${stream}.${durable}`,
          `$JS.API.CONSUMER.MSG.NEXT.ns1_${stream}.${durable}`,
        ]),
      ];
      expect([service, wanted.filter((s) => !allowed.includes(s))]).toEqual([service, []]);
    }
  });
});
