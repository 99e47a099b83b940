import { FirewallRule, PREVIEW_SUBJECTS, PreviewReport, StatusError } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { evaluatorSystem } from '../../test/evaluator-system';
import { inForce } from '../../test/evaluator-probes';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

const ALLOW_10: FirewallRule[] = [
  { priority: 100, direction: 'INGRESS', action: 'allow', match: { srcIpRanges: ['10.0.0.0/8'] } },
];
const BLOCK: FirewallRule[] = [
  { priority: 10, direction: 'INGRESS', action: 'deny', match: { srcIpRanges: ['10.0.1.0/24'] } },
  ...ALLOW_10,
];
const VERSIONS = 12;

/**
 * A report of an experiment previewed across many live versions, a page of configurations at a
 * time: an experiment that lived through a hundred commits of its policy still has a report the
 * bus carries.
 */
describe('the preview report: pages of configurations', () => {
  const system = evaluatorSystem({
    given: async ({ world }) => {
      await world.policy('web', ALLOW_10);
      await world.experiment('web', 'block', BLOCK, 'ACTIVE');
    },
  });
  const report = (request: Record<string, unknown>) =>
    system.rpc.request<PreviewReport>(
      PREVIEW_SUBJECTS.previewReport,
      { name: system.world.experimentName('web', 'block'), ...request },
      { timeoutMs: 5_000 },
    );

  beforeAll(async () => {
    // One configuration per live version: each version in force, then one event counted under it.
    for (let version = 1; version <= VERSIONS; version++) {
      const etag =
        version === 1
          ? 'web-L1'
          : await system.world.policy('web', [
              { ...ALLOW_10[0], description: `version ${version}` },
            ]);
      await inForce(system.app, system.world, 'web', (view) => view.etag === etag);
      const seq = await publishTraffic(system.nc, system.iso, 'web', [
        trafficEvent(version, { srcIp: '10.0.1.7', destPort: 22 }),
      ]);
      await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'settled' });
    }
  });

  it('walks every configuration, newest first, a page at a time; the first page alone judges readiness and carries the reportEtag', async () => {
    const whole = await report({ pageSize: 50 });
    expect(whole.configurations.map((c) => c.livePolicyEtag)).toEqual(
      Array.from({ length: VERSIONS }, (_, i) => `web-L${VERSIONS - i}`),
    );
    expect(whole.nextPageToken).toBeUndefined();

    const pages: PreviewReport[] = [await report({ pageSize: 5 })];
    while (pages.at(-1)!.nextPageToken)
      pages.push(await report({ pageSize: 5, pageToken: pages.at(-1)!.nextPageToken }));
    expect(pages.map((p) => p.configurations.length)).toEqual([5, 5, 2]);
    expect(pages.flatMap((p) => p.configurations)).toEqual(whole.configurations);
    expect(pages[0].readiness).toEqual(whole.readiness);
    expect(pages[0].reportEtag).toBeDefined();
    for (const later of pages.slice(1)) {
      expect(later.readiness).toBeUndefined();
      expect(later.reportEtag).toBeUndefined();
    }
  });

  it('lists the ten newest configurations when no page size is asked, and where the rest continue', async () => {
    const first = await report({});
    expect(first.configurations).toHaveLength(10);
    const rest = await report({ pageToken: first.nextPageToken });
    expect(rest.configurations.map((c) => c.livePolicyEtag)).toEqual(['web-L2', 'web-L1']);
    expect(rest.nextPageToken).toBeUndefined();
  });

  it('refuses a page token of another experiment, or a forged one, as INVALID_ARGUMENT', async () => {
    const { nextPageToken } = await report({ pageSize: 1 });
    const otherExperiment = system.rpc.request<PreviewReport>(
      PREVIEW_SUBJECTS.previewReport,
      { name: system.world.experimentName('web', 'other'), pageToken: nextPageToken },
      { timeoutMs: 5_000 },
    );
    await expect(otherExperiment).rejects.toMatchObject({ status: 'INVALID_ARGUMENT' });
    await expect(report({ pageToken: 'bm90LWEtdG9rZW4' })).rejects.toBeInstanceOf(StatusError);
    await expect(report({ pageSize: -1 })).rejects.toMatchObject({ status: 'INVALID_ARGUMENT' });
  });
});
