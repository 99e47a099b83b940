import type { DifferingRegion } from '@rollout/contracts';
import { newRequestId } from '../api/request-id';
import { projectChoices } from './project-choices';
import { currentRevision, revisionSourceText } from './revision-words';
import { describeRegion, describeRule, formatFieldValue, regionOpens } from './rule-words';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('the request id of each call', () => {
  it('is a fresh version 4 UUID, also where crypto.randomUUID is missing (plain HTTP)', () => {
    const ids = new Set(Array.from({ length: 50 }, () => newRequestId()));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    const allOnes = {
      getRandomValues: <T extends ArrayBufferView | null>(array: T): T => {
        new Uint8Array((array as ArrayBufferView).buffer).fill(0xff);
        return array;
      },
    };
    const fromBytes = newRequestId(allOnes);
    expect(fromBytes).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
  });
});

describe('rules and regions in words', () => {
  it('says what a rule matches', () => {
    expect(
      describeRule({
        priority: 900,
        direction: 'INGRESS',
        action: 'deny',
        match: {
          srcIpRanges: ['0.0.0.0/0'],
          layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
        },
        targetTags: ['web'],
      }),
    ).toBe('INGRESS deny tcp/22 from 0.0.0.0/0 to anywhere, on instances tagged web');
    expect(formatFieldValue(['22', '443'])).toBe('22, 443');
    expect(formatFieldValue(undefined)).toBe('(none)');
    expect(formatFieldValue({ a: 1 })).toBe('{"a":1}');
  });

  it('says what a region’s change does', () => {
    const region: DifferingRegion = {
      direction: 'INGRESS',
      srcIpRanges: ['0.0.0.0/0'],
      destIpRanges: [],
      layer4Configs: [{ ipProtocols: ['tcp'], ports: ['22'] }],
      liveVerdict: { action: 'allow', rulePriority: 1000, implied: false },
      experimentVerdict: { action: 'deny', rulePriority: 900, implied: false },
    };
    expect(describeRegion(region)).toBe(
      'INGRESS tcp/22 from 0.0.0.0/0 to anywhere: allow (rule 1000) becomes deny (rule 900)',
    );
    expect(regionOpens(region)).toBe(false);
  });
});

describe('revisions', () => {
  const revision = (revisionId: string, etag: string) => ({
    name: `projects/acme/locations/global/firewallPolicies/edge/revisions/${revisionId}`,
    revisionId,
    createTime: '2026-11-28T21:00:00Z',
    actor: 'someone',
    source: { kind: 'update' as const },
    etag,
    rules: [],
  });

  it('say what made them', () => {
    expect(
      revisionSourceText({
        kind: 'commit',
        experiment: 'projects/acme/locations/global/firewallPolicies/edge/experiments/block-ssh',
      }),
    ).toBe('commit of experiment block-ssh');
    expect(revisionSourceText({ kind: 'rollback', rolledBackTo: '2' })).toBe(
      'rollback to revision 2',
    );
    expect(revisionSourceText({ kind: 'create' })).toBe('policy created');
  });

  it('take the one with the policy’s etag as current, else the newest', () => {
    const list = [revision('3', 'c'), revision('2', 'b')];
    expect(currentRevision(list, 'b')?.revisionId).toBe('2');
    expect(currentRevision(list, 'unknown')?.revisionId).toBe('3');
  });
});

describe('the project picker', () => {
  it('lists the gateway’s projects with their policy counts, else the token’s own', () => {
    expect(
      projectChoices(
        {
          projects: [
            { projectId: 'acme', policyCount: 1 },
            { projectId: 'beta', policyCount: 3 },
          ],
        },
        { projects: [], allProjects: true },
      ),
    ).toEqual({
      choices: [
        { projectId: 'acme', label: 'acme (1 policy)' },
        { projectId: 'beta', label: 'beta (3 policies)' },
      ],
      mayNameOther: true,
    });
    expect(projectChoices(undefined, { projects: ['acme'], allProjects: false })).toEqual({
      choices: [{ projectId: 'acme', label: 'acme' }],
      mayNameOther: false,
    });
  });
});
