import { START_TIME_FEATURE, SYSTEM_V1 } from '@rollout/contracts';
import { JsonBody } from '@rollout/testing/kit';
import { P, experimentsSystem, rule } from '../../test/experiments-system';

/**
 * The runtime side of the compatibility policy through the gateway, with the experiment-service
 * in its own process: HTTP clients named by User-Agent in the metrics, a deprecated field
 * (experiment.v1 CommitRequest.parentEtag) answered with Deprecation/Sunset/Link and counted,
 * and the system.v1 start-time feature sent only to a client that declares it.
 */
const { reply, createPolicy, createExperiment, sample } = experimentsSystem();

/** A call from the acme-cli client, with the answer's headers. */
const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  reply(method, path, body, undefined, { 'user-agent': 'acme-cli/2.0.1', ...headers });

/** A live policy and an experiment of it, ready to commit. */
async function candidate(policy: string) {
  const live = await createPolicy(policy, [rule(10)]);
  const experiment = await createExperiment(policy, 'candidate', [rule(3)]);
  return { live, experiment, commit: `${P}/${policy}/experiments/candidate:commit` };
}

describe('a deprecated field over HTTP', () => {
  it('parentEtag still works, and the answer says it is deprecated (Deprecation, Sunset, Link) and it is counted', async () => {
    const before = await sample('deprecated_feature_use_total', {
      contract: 'experiment.v1',
      field: 'CommitRequest.parentEtag',
      client: 'acme-cli',
    });
    const { live, experiment, commit } = await candidate('old-name');
    const stale = await call('POST', commit, { etag: experiment.etag, parentEtag: 'W/"stale"' });
    expect(stale.status).toBe(409);
    const committed = await call('POST', commit, { etag: experiment.etag, parentEtag: live.etag });
    expect(committed.status).toBe(200);
    expect(committed.headers.get('deprecation')).toBe(`@${Date.parse('2026-11-23') / 1000}`);
    expect(committed.headers.get('sunset')).toBe('Fri, 31 Dec 2027 00:00:00 GMT');
    expect(committed.headers.get('link')).toBe('</docs>; rel="deprecation"; type="text/html"');
    expect(
      await sample('deprecated_feature_use_total', {
        contract: 'experiment.v1',
        field: 'CommitRequest.parentEtag',
        client: 'acme-cli',
      }),
    ).toBe(before + 2);
  });

  it('livePolicyEtag means the same, without the deprecation headers; the two names disagreeing is 400', async () => {
    const { live, experiment, commit } = await candidate('new-name');
    expect(
      (await call('POST', commit, { etag: experiment.etag, livePolicyEtag: 'W/"stale"' })).status,
    ).toBe(409);
    const conflicting = await call('POST', commit, {
      etag: experiment.etag,
      livePolicyEtag: live.etag,
      parentEtag: 'W/"other"',
    });
    expect(conflicting.status).toBe(400);
    expect(conflicting.body.error.details[0].fieldViolations[0].field).toBe('parentEtag');
    const committed = await call('POST', commit, {
      etag: experiment.etag,
      livePolicyEtag: live.etag,
    });
    expect(committed.status).toBe(200);
    expect(committed.body.response.rules).toEqual([rule(3)]);
    expect(committed.headers.get('deprecation')).toBeNull();
    expect(committed.headers.get('sunset')).toBeNull();
  });
});

describe('clients and features over HTTP', () => {
  it('counts HTTP requests by the User-Agent product name', async () => {
    const before = await sample('contract_client_requests_total', {
      transport: 'http',
      client: 'acme-cli',
    });
    await call('GET', '/v1/services/experiment-service');
    expect(
      await sample('contract_client_requests_total', { transport: 'http', client: 'acme-cli' }),
    ).toBe(before + 1);
  });

  it('GET /v1/services lists packages with semver and features; startTime only for a client that declared it', async () => {
    const plain = (await call('GET', '/v1/services')).body.services as Record<string, JsonBody>[];
    const serving = plain.filter((s) => s.state === 'SERVING').map((s) => s.name);
    expect(serving).toEqual(expect.arrayContaining(['gateway', 'experiment-service']));
    for (const status of plain) {
      expect(status.startTime).toBeUndefined();
      if (status.state === 'SERVING') {
        expect(status.contracts).toContainEqual({
          name: 'system.v1',
          version: SYSTEM_V1.version,
          features: [START_TIME_FEATURE],
        });
      }
    }
    const declared = (
      await call('GET', '/v1/services', undefined, {
        'client-features': `com.acme.other, ${START_TIME_FEATURE}`,
      })
    ).body.services as Record<string, JsonBody>[];
    for (const status of declared.filter((s) => s.state === 'SERVING')) {
      expect(Date.parse(status.startTime)).toBeLessThanOrEqual(Date.now());
    }
    expect(declared.filter((s) => s.startTime).map((s) => s.name)).toEqual(
      expect.arrayContaining(['gateway', 'experiment-service']),
    );
    expect(
      await sample('contract_client_features_total', {
        transport: 'http',
        client: 'acme-cli',
        feature: START_TIME_FEATURE,
      }),
    ).toBeGreaterThanOrEqual(1);
  });
});
