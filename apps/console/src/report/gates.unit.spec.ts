import type {
  FirewallPolicy,
  FirewallPolicyExperiment,
  PreviewConfigurationReport,
  PreviewReport,
} from '@rollout/contracts';
import { commitGates } from './gates';

describe('the gates shown before a commit', () => {
  const experiment = { etag: 'e2' } as FirewallPolicyExperiment;
  const livePolicy = { etag: 'l1' } as FirewallPolicy;
  const configuration = (
    experimentEtag: string,
    livePolicyEtag: string,
    evaluated: number,
    complete = true,
  ) =>
    ({
      experimentEtag,
      livePolicyEtag,
      evaluated,
      completeness: { complete, summary: complete ? 'Complete.' : 'Incomplete: 3 dead-lettered.' },
    }) as PreviewConfigurationReport;
  const report = (...configurations: PreviewConfigurationReport[]) =>
    ({ name: 'r', configurations }) as PreviewReport;
  const passed = (gates: ReturnType<typeof commitGates>) => gates.map((gate) => gate.passed);

  it('all pass when this experiment was evaluated on traffic against this live policy', () => {
    expect(
      passed(commitGates(report(configuration('e2', 'l1', 40)), experiment, livePolicy)),
    ).toEqual([true, true, true, true]);
  });

  it('fail the completeness gate with the summary of what the counts miss', () => {
    const gates = commitGates(report(configuration('e2', 'l1', 40, false)), experiment, livePolicy);
    expect(gates.find((gate) => gate.id === 'complete')).toEqual({
      id: 'complete',
      passed: false,
      text: 'Incomplete: 3 dead-lettered.',
    });
  });

  it('fail when the report holds only an earlier version of the experiment or of the live policy', () => {
    expect(
      passed(commitGates(report(configuration('e1', 'l1', 40)), experiment, livePolicy)),
    ).toEqual([false, false, false, false]);
    expect(
      passed(commitGates(report(configuration('e2', 'l0', 40)), experiment, livePolicy)),
    ).toEqual([true, false, false, false]);
  });

  it('fail without a report, or with nothing evaluated', () => {
    expect(passed(commitGates(undefined, experiment, livePolicy))).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(
      passed(commitGates(report(configuration('e2', 'l1', 0)), experiment, livePolicy)),
    ).toEqual([true, true, true, false]);
  });
});
