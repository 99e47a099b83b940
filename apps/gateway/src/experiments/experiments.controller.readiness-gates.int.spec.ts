import { reportEtagMatters } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { P, allowSsh, denyNet, previewSystem } from '../../test/preview-system';

// Two evaluator replicas share the traffic and both run auto-stop, as in production.
const { call, sendTraffic, trafficEvent, activeOnReplicas } = previewSystem({
  evaluators: 2,
  evaluatorEnv: { AUTO_STOP_INTERVAL_MS: '200' },
});

/** One INGRESS ssh connection a minute apart in event time. */
const event = (srcIp: string) => trafficEvent(srcIp, { spacingMs: 60_000 });

/**
 * Starts the preview and waits until every evaluator replica holds `active` ACTIVE experiments,
 * so every event sent next is counted.
 */
async function startPreview(experiment: string, active: number): Promise<string> {
  const started = await call('POST', `${experiment}:startPreview`);
  expect(started.status).toBe(200);
  await eventually(
    async () => ((await activeOnReplicas()).every((n) => n === active) ? true : undefined),
    { what: 'preview ACTIVE in every evaluator replica' },
  );
  return started.body.response.etag;
}

/** The gateway adds the request id to every error. */
const REQUEST_INFO = expect.objectContaining({
  '@type': 'type.googleapis.com/google.rpc.RequestInfo',
});

describe('readiness gates, commits bound to the report, and auto-stop, through the gateway', () => {
  it('refuses a bad gate, naming the field', async () => {
    expect((await call('POST', `${P}?firewallPolicyId=edge`, { rules: [allowSsh] })).status).toBe(
      200,
    );
    const refused = await call('POST', `${P}/edge/experiments?experimentId=bad`, {
      firewallPolicy: { rules: [] },
      readinessGates: [{ maxAllowToDenyShare: 5 }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([
      {
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [
          {
            field: 'experiment.readinessGates[0].maxAllowToDenyShare',
            description: 'must be a share between 0 and 1 (0.001 is 0.1%)',
          },
        ],
      },
      REQUEST_INFO,
    ]);
  });

  it('shows each gate in the report, refuses a commit while one fails or after what matters moved, and commits once they hold', async () => {
    const experiment = `${P}/edge/experiments/block-net`;
    const gates = [
      { minEvaluated: 4 },
      { maxAllowToDenyShare: 0.5 },
      { noDenyToAllowFrom: '0.0.0.0/0' },
      { maxCompletenessLoss: 0 },
    ];
    expect(
      (
        await call('POST', `${P}/edge/experiments?experimentId=block-net`, {
          firewallPolicy: { rules: [denyNet, allowSsh] },
          readinessGates: gates,
        })
      ).status,
    ).toBe(200);
    const etag = await startPreview(experiment, 1);
    const live = (await call('GET', `${P}/edge`)).body;

    // 10.0.1.1 goes allow → deny; 10.0.2.2 stays allowed.
    await sendTraffic('edge', [event('10.0.1.1'), event('10.0.2.2')]);
    const first = (await call('GET', `${experiment}/previewReport`)).body;
    expect(first.readiness).toEqual({
      currentExperimentEtag: etag,
      experimentEtag: etag,
      livePolicyEtag: live.etag,
      ready: false,
      gates: [
        {
          gate: gates[0],
          kind: 'minEvaluated',
          value: 2,
          holds: false,
          description: '2 events evaluated; at least 4 required.',
        },
        {
          gate: gates[1],
          kind: 'maxAllowToDenyShare',
          value: 0.5,
          holds: true,
          description: 'allow→deny is 50% of evaluated (1 of 2); at most 50% allowed.',
        },
        {
          gate: gates[2],
          kind: 'noDenyToAllowFrom',
          value: 0,
          holds: true,
          description: '0 deny→allow events from 0.0.0.0/0; none allowed.',
        },
        {
          gate: gates[3],
          kind: 'maxCompletenessLoss',
          value: 0,
          holds: true,
          description:
            '0 messages lost or possibly lost (dead-lettered 0, dropped by TRAFFIC 0, possibly dropped 0); at most 0 allowed.',
        },
      ],
    });

    const unmet = await call('POST', `${experiment}:commit`, { etag, requireGates: true });
    expect(unmet.status).toBe(400);
    expect(unmet.body.error).toMatchObject({
      status: 'FAILED_PRECONDITION',
      message:
        '1 of 4 readiness gates of "projects/acme/locations/global/firewallPolicies/edge/experiments/block-net" do not hold.',
    });
    expect(unmet.body.error.details).toEqual([
      {
        '@type': 'type.googleapis.com/google.rpc.PreconditionFailure',
        violations: [
          {
            type: 'READINESS_GATE',
            subject: 'readinessGates[0].minEvaluated',
            description: '2 events evaluated; at least 4 required.',
          },
        ],
      },
      REQUEST_INFO,
    ]);

    // Two more unchanged events: minEvaluated flips to holding, so what matters moved.
    await sendTraffic('edge', [event('10.0.2.3'), event('10.0.2.4')]);
    const second = (await call('GET', `${experiment}/previewReport`)).body;
    expect(second.readiness.ready).toBe(true);
    expect(reportEtagMatters(second.reportEtag)).not.toBe(reportEtagMatters(first.reportEtag));
    const moved = await call('POST', `${experiment}:commit`, {
      etag,
      reportEtag: first.reportEtag,
    });
    expect(moved.status).toBe(409);
    expect(moved.body.error).toMatchObject({
      status: 'ABORTED',
      details: [expect.objectContaining({ reason: 'REPORT_CHANGED' }), REQUEST_INFO],
    });
    expect(
      (await call('POST', `${experiment}:commit`, { etag, reportEtag: 'not-an-etag' })).status,
    ).toBe(400);

    // One more event changes the counts but no verdict: the operator's reportEtag still stands.
    await sendTraffic('edge', [event('10.0.2.5')]);
    const third = (await call('GET', `${experiment}/previewReport`)).body;
    expect(third.configurations[0].evaluated).toBe(5);
    expect(third.reportEtag).not.toBe(second.reportEtag);
    expect(reportEtagMatters(third.reportEtag)).toBe(reportEtagMatters(second.reportEtag));
    const committed = await call('POST', `${experiment}:commit`, {
      etag,
      requireGates: true,
      reportEtag: second.reportEtag,
    });
    expect(committed.status).toBe(200);
    expect(committed.body.response.rules).toEqual([denyNet, allowSsh]);
    expect((await call('GET', `${experiment}`)).status).toBe(404);
    // The revision the commit made says what it was committed on.
    const [revision] = (await call('GET', `${P}/edge/revisions`)).body.revisions;
    expect(revision.source).toMatchObject({
      kind: 'commit',
      experimentEtag: etag,
      reportEtag: second.reportEtag,
      gates: { required: true },
    });
    expect(revision.source.gates.gates.filter((g: { holds: boolean }) => g.holds)).toHaveLength(4);
    await eventually(
      async () => ((await activeOnReplicas()).every((n) => n === 0) ? true : undefined),
      { what: 'the committed preview gone from every replica' },
    );
  });

  it('stops a preview by itself after stopAfter events or when the breaker trips, once whatever the replicas, recorded as the system with the reason', async () => {
    expect((await call('POST', `${P}?firewallPolicyId=auto`, { rules: [allowSsh] })).status).toBe(
      200,
    );
    // The same rules: no verdict changes, stops after 3 events.
    expect(
      (
        await call('POST', `${P}/auto/experiments?experimentId=counted`, {
          firewallPolicy: { rules: [allowSsh] },
          stopAfter: { evaluatedEvents: 3 },
        })
      ).status,
    ).toBe(200);
    // No rules: the implied INGRESS deny blocks every ssh connection the live policy allows.
    expect(
      (
        await call('POST', `${P}/auto/experiments?experimentId=tripped`, {
          firewallPolicy: { rules: [] },
          breaker: { maxAllowToDenyShare: 0.5, minEvaluated: 2 },
        })
      ).status,
    ).toBe(200);
    const counted = `${P}/auto/experiments/counted`;
    const tripped = `${P}/auto/experiments/tripped`;
    await startPreview(counted, 1);
    await startPreview(tripped, 2);

    await sendTraffic('auto', [event('10.0.2.1')]);
    expect((await call('GET', counted)).body.previewMetadata.state).toBe('ACTIVE');
    await sendTraffic('auto', [event('10.0.2.2'), event('10.0.2.3')]);

    for (const [experiment, reason] of [
      [counted, /^stopAfter: 3 events evaluated, the limit is 3$/],
      [tripped, /^breaker: allow→deny is 100% of evaluated \(([23]) of \1\), above 50%$/],
    ] as const) {
      await eventually(
        async () =>
          (await call('GET', experiment)).body.previewMetadata.state === 'SUSPENDED'
            ? true
            : undefined,
        { what: `${experiment} stopped by itself` },
      );
      const history = (await call('GET', `${experiment}/events`)).body.events;
      const stops = history.filter((e: { type: string }) => e.type === 'PreviewStopped');
      expect(stops).toHaveLength(1);
      expect(stops[0]).toMatchObject({
        actor: 'system:evaluator',
        reason: expect.stringMatching(reason),
      });
    }
  });
});
