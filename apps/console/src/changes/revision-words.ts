import type { Revision, RevisionSource } from '@rollout/contracts';

/** The API may give its full resource name. */
export const experimentIdOf = (experiment: string) => experiment.split('/').pop() ?? experiment;

export function revisionSourceText(source: RevisionSource): string {
  switch (source.kind) {
    case 'create':
      return 'policy created';
    case 'update':
      return 'rules updated directly';
    case 'commit':
      return source.experiment
        ? `commit of experiment ${experimentIdOf(source.experiment)}`
        : 'commit of an experiment';
    case 'rollback':
      return source.rolledBackTo ? `rollback to revision ${source.rolledBackTo}` : 'rollback';
    default:
      return String((source as { kind?: unknown }).kind ?? 'unknown');
  }
}

/** The revision in force: the one whose etag is the policy's, else the newest listed. */
export function currentRevision(revisions: Revision[], policyEtag?: string): Revision | undefined {
  return revisions.find((r) => r.etag === policyEtag) ?? revisions[0];
}

/** A suffix so previewing the same rollback twice makes two experiments rather than a clash; always a valid AIP-122 id. */
export const rollbackPreviewId = (revisionId: string, suffix: string) =>
  `rollback-to-${revisionId}-${suffix}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 63)
    .replace(/-+$/, '');
