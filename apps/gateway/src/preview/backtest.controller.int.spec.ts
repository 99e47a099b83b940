import { eventually } from '@rollout/testing/kit';
import { OTHER_TEAM_TOKEN, P, allowSsh, denyNet, previewSystem } from '../../test/preview-system';

/** `:backtest` answers an operation that `GET /v1/operations/{id}` follows. */
describe('backtesting an experiment through the gateway', () => {
  const { call, publishTraffic, trafficEvent: event } = previewSystem();

  const experiment = `${P}/edge/experiments/block-ssh`;

  /** Follows a backtest's operation until it is done. */
  const done = (name: string) =>
    eventually(
      async () => {
        const { status, body } = await call('GET', `/v1/${name}`);
        expect(status).toBe(200);
        return body.done ? body : undefined;
      },
      { timeoutMs: 20_000, what: `${name} done` },
    );

  beforeAll(async () => {
    expect((await call('POST', `${P}?firewallPolicyId=edge`, { rules: [allowSsh] })).status).toBe(
      200,
    );
    expect(
      (
        await call('POST', `${P}/edge/experiments?experimentId=block-ssh`, {
          firewallPolicy: { rules: [denyNet, allowSsh] },
        })
      ).status,
    ).toBe(200);
    // Three ssh connections from 10.0.1.0/24 (the experiment denies them), two from elsewhere (allowed by both).
    await publishTraffic('edge', [
      event('10.0.1.1'),
      event('10.0.1.1'),
      event('10.0.1.7'),
      event('10.0.2.1'),
      event('10.0.3.1'),
    ]);
  });

  it('backtests an experiment that was never previewed, and its result is the operation response', async () => {
    const started = await eventually(
      async () => {
        const answer = await call('POST', `${experiment}:backtest`);
        return answer.status === 200 ? answer.body : undefined;
      },
      { what: 'the evaluator holding the experiment' },
    );
    expect(started).toMatchObject({
      name: expect.stringMatching(/^operations\/backtest-[0-9a-f-]{36}$/),
      done: false,
      metadata: { verb: 'backtest', target: experiment.slice(4) },
    });

    const { response, metadata } = await done(started.name);
    expect(metadata).toMatchObject({ messagesReplayed: 5, eventsReplayed: 5 });
    expect(response['@type']).toBe('type.googleapis.com/policyrollout.preview.v1.BacktestResult');
    expect(response.report.configurations).toHaveLength(1);
    expect(response.report.configurations[0]).toMatchObject({
      evaluated: 5,
      changed: 3,
      allowToDeny: 3,
      unchangedAllow: 2,
      flows: 2,
      topChangedSources: [
        { srcIp: '10.0.1.1', count: 2 },
        { srcIp: '10.0.1.7', count: 1 },
      ],
    });
    expect(response.window).toMatchObject({
      messagesReplayed: 5,
      skippedMessages: 0,
      startsBeforeRetention: false,
      retainedStartSequence: 1,
    });
    // The live preview never ran: its report is as empty as before.
    expect((await call('GET', `${experiment}/previewReport`)).body.configurations).toEqual([]);
  });

  it('takes a window, and says when it starts before what TRAFFIC retains', async () => {
    const started = await call('POST', `${experiment}:backtest`, {
      startTime: '2001-01-01T00:00:00Z',
    });
    expect(started.status).toBe(200);
    const { response } = await done(started.body.name);
    expect(response.window).toMatchObject({
      requestedStartTime: '2001-01-01T00:00:00.000Z',
      startsBeforeRetention: true,
      eventsReplayed: 5,
    });
    expect(response.window.summary).toContain('before the oldest message TRAFFIC still retains');
  });

  it('refuses a bad window, an unknown or committed experiment, and hides another team’s backtests', async () => {
    expect((await call('POST', `${experiment}:backtest`, { startTime: 'soon' })).status).toBe(400);
    const backwards = await call('POST', `${experiment}:backtest`, {
      startTime: '2025-06-02T00:00:00Z',
      endTime: '2025-06-01T00:00:00Z',
    });
    expect([backwards.status, backwards.body.error.status, backwards.body.error.message]).toEqual([
      400,
      'INVALID_ARGUMENT',
      'endTime is before startTime.',
    ]);
    expect((await call('POST', `${P}/edge/experiments/nothing:backtest`)).body.error.status).toBe(
      'NOT_FOUND',
    );

    const started = (await call('POST', `${experiment}:backtest`)).body;
    expect((await call('POST', `${experiment}:backtest`, undefined, OTHER_TEAM_TOKEN)).status).toBe(
      404,
    );
    expect((await call('GET', `/v1/${started.name}`, undefined, OTHER_TEAM_TOKEN)).status).toBe(
      404,
    );
    expect(
      (await call('GET', '/v1/operations/backtest-00000000-0000-0000-0000-000000000000')).status,
    ).toBe(404);

    const current = (await call('GET', experiment)).body;
    expect((await call('POST', `${experiment}:commit`, { etag: current.etag })).status).toBe(200);
    const committed = await eventually(
      async () => {
        const answer = await call('POST', `${experiment}:backtest`);
        return answer.status === 404 ? answer.body : undefined;
      },
      { what: 'the evaluator seeing the commit' },
    );
    expect(committed.error.message).toContain(
      'not found (a committed or deleted experiment has nothing to backtest)',
    );
    // What was started before the commit still finishes.
    expect((await done(started.name)).response.report.configurations[0].evaluated).toBe(5);
  });
});
