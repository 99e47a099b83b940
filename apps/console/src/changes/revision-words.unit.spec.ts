import { currentRevision, revisionSourceText, rollbackPreviewId } from './revision-words';

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

  it('names a rollback preview with a valid experiment id, unique per suffix', () => {
    expect(rollbackPreviewId('3', 'lz4k2a')).toBe('rollback-to-3-lz4k2a');
    const long = rollbackPreviewId('12', 'X'.repeat(80));
    expect(long).toMatch(/^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/);
  });
});
