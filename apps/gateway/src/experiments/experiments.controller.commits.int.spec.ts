import { eventually, freePort, startServiceProcess } from '@rollout/testing/kit';
import { P, Response, experimentsSystem, rule } from '../../test/experiments-system';

const system = experimentsSystem();
const { call, createExperiment, createPolicy } = system;

describe('commit', () => {
  it('copies the experiment into the live policy atomically and deletes the experiment; twice is 404', async () => {
    const live = await createPolicy('commit-me', [rule(10, 'allow')]);
    const experiment = await createExperiment('commit-me', 'candidate', [rule(3)]);
    const committed = await call('POST', `${P}/commit-me/experiments/candidate:commit`, {
      etag: experiment.etag,
      livePolicyEtag: live.etag,
    });
    expect(committed.status).toBe(200);
    expect(committed.body.response).toMatchObject({ name: live.name, rules: [rule(3)] });
    expect(committed.body.response.etag).not.toBe(live.etag);
    expect((await call('GET', `${P}/commit-me`)).body.rules).toEqual([rule(3)]);
    expect((await call('GET', `${P}/commit-me/experiments/candidate`)).status).toBe(404);
    const twice = await call('POST', `${P}/commit-me/experiments/candidate:commit`, {
      etag: experiment.etag,
    });
    expect(twice.status).toBe(404);
  });

  it('with a missing, stale or stale-parent etag changes nothing and leaves an ACTIVE preview ACTIVE', async () => {
    const live = await createPolicy('guarded', [rule(10, 'allow')]);
    await createExperiment('guarded', 'candidate', [rule(3)]);
    const active = (await call('POST', `${P}/guarded/experiments/candidate:startPreview`)).body
      .response;
    expect((await call('POST', `${P}/guarded/experiments/candidate:commit`, {})).status).toBe(400);
    expect(
      (await call('POST', `${P}/guarded/experiments/candidate:commit`, { etag: 'stale' })).status,
    ).toBe(409);
    expect(
      (
        await call('POST', `${P}/guarded/experiments/candidate:commit`, {
          etag: active.etag,
          livePolicyEtag: 'stale',
        })
      ).status,
    ).toBe(409);
    expect((await call('GET', `${P}/guarded`)).body).toEqual(live);
    expect(
      (await call('GET', `${P}/guarded/experiments/candidate`)).body.previewMetadata.state,
    ).toBe('ACTIVE');
  });

  it('50 concurrent commits of one experiment: exactly one succeeds and the policy gets one new version', async () => {
    await createPolicy('race');
    const experiment = await createExperiment('race', 'candidate', [rule(3)]);
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        call('POST', `${P}/race/experiments/candidate:commit`, { etag: experiment.etag }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(
      results.filter((r) => r.status !== 200).every((r) => r.status === 409 || r.status === 404),
    ).toBe(true);
    const history = (await call('GET', `${P}/race/events`)).body.events.map(
      (e: { type: string }) => e.type,
    );
    expect(history).toEqual(['PolicyCreated', 'PolicyCommitted']);
  });

  it('50 concurrent updates with the same etag: one wins', async () => {
    const live = await createPolicy('contended');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call('PATCH', `${P}/contended?updateMask=rules`, { etag: live.etag, rules: [rule(i)] }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(49);
  });
});

describe('commands that decide on the state the service last saw', () => {
  const stateOf = (r: Response) => r.body.response?.previewMetadata?.state;

  it('50 concurrent experiment updates with the same etag: one wins, the rest are ABORTED', async () => {
    await createPolicy('contended-experiment');
    const experiment = await createExperiment('contended-experiment', 'candidate');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(
          'PATCH',
          `${P}/contended-experiment/experiments/candidate?updateMask=firewallPolicy.rules`,
          { etag: experiment.etag, firewallPolicy: { rules: [rule(i)] } },
        ),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(49);
    const history = (
      await call('GET', `${P}/contended-experiment/experiments/candidate/events`)
    ).body.events.map((e: { type: string }) => e.type);
    expect(history).toEqual(['ExperimentCreated', 'ExperimentUpdated']);
  });

  it('a retried command (same requestId) acts once and answers the first Operation, even when retried at once', async () => {
    await createPolicy('retried-commands');
    const experiment = await createExperiment('retried-commands', 'once');
    const path = `${P}/retried-commands/experiments/once`;
    const starts = await Promise.all(
      Array.from({ length: 10 }, () => call('POST', `${path}:startPreview?requestId=start-1`)),
    );
    expect(new Set(starts.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(starts.map((r) => r.body.name)).size).toBe(1);
    const update = (etag: string) =>
      call('PATCH', `${path}?updateMask=firewallPolicy.rules&requestId=update-1`, {
        etag,
        firewallPolicy: { rules: [rule(9)] },
      });
    const updated = await update(starts[0].body.response.etag);
    expect(updated.status).toBe(200);
    // The etag it sent is stale now, but the retry is answered with the first result.
    expect(await update(starts[0].body.response.etag)).toEqual(updated);
    expect((await call('POST', `${path}:startPreview?requestId=start-1`)).body).toEqual(
      starts[0].body,
    );
    const history = (await call('GET', `${path}/events`)).body.events.map(
      (e: { type: string; commandRequestId?: string }) => [e.type, e.commandRequestId],
    );
    expect(history).toEqual([
      ['ExperimentCreated', undefined],
      ['PreviewStarted', 'start-1'],
      ['ExperimentUpdated', 'update-1'],
    ]);
    expect(experiment.etag).not.toBe(updated.body.response.etag);
  });

  it('a preview command after a cascade deleted the experiment is NOT_FOUND, not a conflict', async () => {
    await createPolicy('cascade-after-preview');
    await createExperiment('cascade-after-preview', 'watched');
    expect(
      stateOf(await call('POST', `${P}/cascade-after-preview/experiments/watched:startPreview`)),
    ).toBe('ACTIVE');
    expect((await call('DELETE', `${P}/cascade-after-preview`)).status).toBe(200);
    const stopped = await call(
      'POST',
      `${P}/cascade-after-preview/experiments/watched:stopPreview`,
    );
    expect(stopped.status).toBe(404);
    expect(stopped.body.error.status).toBe('NOT_FOUND');
  });

  it('with two replicas, every command acts on the latest state whichever replica the other one used', async () => {
    const port = await freePort();
    const replica = startServiceProcess('experiment-service', {
      NATS_NAMESPACE: system.namespace,
      DATABASE_SCHEMA: system.schema,
      DATABASE_POOL_SIZE: '4',
      PORT: String(port),
    });
    try {
      await eventually(
        async () =>
          (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok
            ? true
            : undefined,
        {
          timeoutMs: 25_000,
          intervalMs: 200,
          what: 'second replica ready',
        },
      );
      await createPolicy('replicated');
      await createExperiment('replicated', 'flip');
      const flip = `${P}/replicated/experiments/flip`;
      // Requests go to either replica at random; each replica holds the state it last saw,
      // which the other replica's commands make stale. A command also repeats the previous
      // one now and then: that changes nothing, and must say so from the latest state.
      const verbs = [
        'startPreview',
        'stopPreview',
        'stopPreview',
        'startPreview',
        'startPreview',
        'stopPreview',
      ];
      let expected: string | undefined;
      let changes = 1; // ExperimentCreated
      for (let i = 0; i < 60; i++) {
        const verb = verbs[i % verbs.length];
        const wanted = verb === 'startPreview' ? 'ACTIVE' : 'SUSPENDED';
        if (wanted !== expected) changes++;
        expected = wanted;
        const answer = await call('POST', `${flip}:${verb}`);
        expect({ i, status: answer.status, state: stateOf(answer) }).toEqual({
          i,
          status: 200,
          state: expected,
        });
        expect((await call('GET', flip)).body.previewMetadata.state).toBe(expected);
      }
      const history = (await call('GET', `${flip}/events`)).body.events;
      expect(history).toHaveLength(changes);
    } finally {
      await replica.stop();
    }
  }, 60_000);
});
