import {
  CommitEvidenceRecord,
  PreviewReport,
  StatusError,
  reportEtagMatters,
} from '@rollout/contracts';

/** What a commit may ask of the preview report before it goes ahead (docs/readiness-gates.md). */
export interface CommitEvidence {
  /** Every readiness gate must hold. */
  requireGates?: boolean;
  /** The reportEtag the operator read: what matters in the report must not have moved since. */
  reportEtag?: string;
}

export interface CommitEtags {
  etag?: string;
  livePolicyEtag?: string;
}

const stale = (message: string, reason: string, metadata: Record<string, string>) =>
  StatusError.withReason('ABORTED', message, reason, metadata);

/**
 * Checks a commit against the experiment's report as the evaluator computes it now, and returns
 * the live policy etag the commit must land on: the one the gates were judged against, so the
 * commit cannot go onto a live policy nobody previewed. Refuses with INVALID_ARGUMENT (a
 * malformed reportEtag), ABORTED (the report is about another version, or what matters moved
 * since the operator read it) or FAILED_PRECONDITION (unmet gates, one PreconditionFailure
 * violation each). This is a check before the commit, not inside it: see the docs.
 */
export function checkCommitEvidence(
  report: PreviewReport,
  evidence: CommitEvidence,
  commit: CommitEtags,
): string | undefined {
  const given =
    evidence.reportEtag === undefined ? undefined : reportEtagMatters(evidence.reportEtag);
  if (evidence.reportEtag !== undefined && given === undefined) {
    throw StatusError.invalidArgument('reportEtag is not one a preview report gave.', [
      { field: 'reportEtag', description: 'the reportEtag of GET …:previewReport' },
    ]);
  }
  const readiness = report.readiness;
  if (!readiness) {
    throw StatusError.withReason(
      'FAILED_PRECONDITION',
      `The evaluator does not hold "${report.name}" yet, so its readiness cannot be judged; try again.`,
      'READINESS_UNKNOWN',
      {
        resource: report.name,
      },
    );
  }
  if (commit.etag !== readiness.currentExperimentEtag) {
    throw stale(
      `The report was computed for another version of "${report.name}" (etag ${readiness.currentExperimentEtag}); read the experiment and its report again.`,
      'REPORT_STALE',
      {
        resource: report.name,
        reportExperimentEtag: readiness.currentExperimentEtag,
      },
    );
  }
  if (
    commit.livePolicyEtag !== undefined &&
    readiness.livePolicyEtag !== undefined &&
    commit.livePolicyEtag !== readiness.livePolicyEtag
  ) {
    throw stale(
      `The preview was judged against live policy etag ${readiness.livePolicyEtag}, not ${commit.livePolicyEtag}.`,
      'REPORT_STALE',
      {
        resource: report.name,
        reportLivePolicyEtag: readiness.livePolicyEtag,
      },
    );
  }
  if (given !== undefined && given !== reportEtagMatters(report.reportEtag)) {
    throw stale(
      `The report of "${report.name}" moved on since reportEtag ${evidence.reportEtag}: another configuration, or a gate changed its verdict. Read it again.`,
      'REPORT_CHANGED',
      {
        resource: report.name,
        reportEtag: report.reportEtag ?? '',
      },
    );
  }
  if (evidence.requireGates) {
    const unmet = readiness.gates
      .map((status, index) => ({ status, index }))
      .filter(({ status }) => !status.holds);
    if (unmet.length > 0) {
      throw new StatusError(
        'FAILED_PRECONDITION',
        `${unmet.length} of ${readiness.gates.length} readiness gates of "${report.name}" do not hold.`,
        [
          {
            '@type': 'type.googleapis.com/google.rpc.PreconditionFailure',
            violations: unmet.map(({ status, index }) => ({
              type: 'READINESS_GATE',
              subject: `readinessGates[${index}].${status.kind}`,
              description: status.description,
            })),
          },
        ],
      );
    }
  }
  return commit.livePolicyEtag ?? readiness.livePolicyEtag;
}

/** What the commit was checked against, for its revision: the reportEtag and the gates as judged. */
export function evidenceRecord(
  report: PreviewReport,
  evidence: CommitEvidence,
): CommitEvidenceRecord {
  return {
    ...(evidence.reportEtag !== undefined ? { reportEtag: evidence.reportEtag } : {}),
    ...(report.readiness
      ? {
          gates: {
            required: evidence.requireGates === true,
            gates: report.readiness.gates.map(({ kind, holds, description }) => ({
              kind,
              holds,
              description,
            })),
          },
        }
      : {}),
  };
}
