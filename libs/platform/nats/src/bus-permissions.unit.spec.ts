import { busPermissions, natsAuthorizationConfig } from './bus-permissions';

describe('bus permissions', () => {
  it('lets a traffic producer publish its projects’ traffic of every major, under the namespace, and nothing else', () => {
    expect(
      busPermissions(
        { user: 'producer-a', role: { kind: 'traffic-producer', projects: ['acme', 'beta'] } },
        'ns1',
      ),
    ).toEqual({
      publish: { allow: ['ns1.traffic.*.acme.>', 'ns1.traffic.*.beta.>'] },
      subscribe: { allow: ['_INBOX_producer-a.>'] },
    });
  });

  it('scopes a service’s JetStream rights to its own streams, namespaced', () => {
    const evaluator = busPermissions({ user: 'evaluator', role: { kind: 'evaluator' } }, 'ns1')
      .publish.allow;
    expect(evaluator).toContain('$JS.API.STREAM.*.ns1_TRAFFIC');
    expect(evaluator).toContain('$JS.API.STREAM.INFO.KV_ns1_EXPERIMENT_STATE');
    expect(
      evaluator.filter(
        (s) =>
          s.includes('EXPERIMENT_STATE') &&
          /STREAM\.\*|DELETE\.KV_ns1_EXPERIMENT_STATE$|PURGE/.test(s),
      ),
    ).toEqual([]);
    // Of the experiment service, it calls stopPreview only (auto-stop).
    expect(
      evaluator.filter((s) => s.startsWith('ns1.experiment.v1') || s.startsWith('experiment.v1')),
    ).toEqual(['ns1.experiment.v1.experiments.stopPreview']);
  });

  it('lets every service that verifies assertions write assertion ids, and none read or delete them', () => {
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
        '$JS.API.STREAM.CREATE.KV_ns1_ASSERTION_IDS',
        '$JS.API.STREAM.UPDATE.KV_ns1_ASSERTION_IDS',
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
});
