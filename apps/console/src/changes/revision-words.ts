import type { Revision, RevisionSource } from '@rollout/contracts';

/** An experiment named in a revision, by id (the API may give its full resource name). */
export const experimentIdOf = (experiment: string) => experiment.split('/').pop() ?? experiment;

/** What made a revision, in words: "commit of experiment block-ssh", "rollback to revision 2". */
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

/**
 * The id of the experiment that previews a rollback to a revision: "rollback-to-3-" and a
 * suffix, so that previewing the same rollback twice makes two experiments rather than a clash.
 * Always a valid AIP-122 id (lower case, at most 63 characters).
 */
export const rollbackPreviewId = (revisionId: string, suffix: string) =>
  `rollback-to-${revisionId}-${suffix}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 63)
    .replace(/-+$/, '');
