import type {
  FirewallPolicy,
  FirewallPolicyExperiment,
  PreviewConfigurationReport,
  PreviewReport,
} from '@rollout/contracts';

/** Failing ones do not block, they warn. */
export interface CommitGate {
  id: string;
  passed: boolean;
  text: string;
}

/** The report's configuration of exactly this experiment version on exactly this live version. */
export function currentConfiguration(
  report: PreviewReport | undefined,
  experiment: FirewallPolicyExperiment,
  livePolicy: FirewallPolicy,
): PreviewConfigurationReport | undefined {
  return report?.configurations.find(
    (c) => c.experimentEtag === experiment.etag && c.livePolicyEtag === livePolicy.etag,
  );
}

/** The preview saw this very experiment against this very live policy, on some traffic, and the counts miss nothing. */
export function commitGates(
  report: PreviewReport | undefined,
  experiment: FirewallPolicyExperiment,
  livePolicy: FirewallPolicy,
): CommitGate[] {
  const ofExperiment =
    report?.configurations.filter((c) => c.experimentEtag === experiment.etag) ?? [];
  const current = currentConfiguration(report, experiment, livePolicy);
  return [
    {
      id: 'previewed',
      passed: ofExperiment.length > 0,
      text: ofExperiment.length
        ? 'The preview evaluated the experiment as it is now.'
        : 'The preview has not evaluated the experiment as it is now (never previewed, or changed since).',
    },
    {
      id: 'live-policy',
      passed: current !== undefined,
      text: current
        ? 'It was evaluated against the live policy as it is now.'
        : 'It was not evaluated against the live policy as it is now: the live policy changed since, or nothing was evaluated.',
    },
    {
      id: 'complete',
      passed: current?.completeness?.complete === true,
      text:
        current?.completeness?.summary ??
        'The report does not say whether these counts are all the traffic.',
    },
    {
      id: 'traffic',
      passed: (current?.evaluated ?? 0) > 0,
      text: current?.evaluated
        ? `${current.evaluated.toLocaleString('en-US')} connections were evaluated.`
        : 'No connection was evaluated.',
    },
  ];
}
