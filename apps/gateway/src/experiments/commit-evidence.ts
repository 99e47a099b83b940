import {
  CommitEvidenceRecord,
  PreviewReport,
  StatusError,
  reportEtagMatters,
} from '@rollout/contracts';

/** See docs/readiness-gates.md. */
export interface CommitEvidence {
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
 * Returns the live policy etag the gates were judged against, so the commit cannot land on a live
 * policy nobody previewed. A check before the commit, not inside it: see the docs.
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
