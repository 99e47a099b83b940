import {
  ENFORCEMENT_SUBJECTS,
  EXPERIMENT_SUBJECTS,
  INSPECTION_RULES_SUBJECTS,
  PREVIEW_SUBJECTS,
  serviceInfoSubject,
  ASSERTION_IDS_KV,
} from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { ProcessAssertionIds, isStateChanging } from './assertion-ids';

describe('assertion ids', () => {
  const namespace = new NatsNamespace('t1');
  const stateChanging = (subjects: Record<string, string>) =>
    Object.entries(subjects)
      .filter(([, subject]) => isStateChanging(namespace.subject(subject), namespace))
      .map(([name]) => name);

  it('counts every command of every service as state-changing, and only reads as not', () => {
    expect(stateChanging(EXPERIMENT_SUBJECTS)).toEqual([
      'createPolicy',
      'updatePolicy',
      'deletePolicy',
      'createExperiment',
      'updateExperiment',
      'deleteExperiment',
      'startPreview',
      'stopPreview',
      'commit',
      'rollback',
      'proposeCommit',
      'approveCommit',
      'updateProjectSettings',
    ]);
    expect(stateChanging(ENFORCEMENT_SUBJECTS)).toEqual([
      'createLease',
      'updateLease',
      'endLease',
      'deleteLease',
      'blazarCheckCreate',
      'blazarCheckUpdate',
      'blazarOnEnd',
    ]);
    expect(stateChanging(INSPECTION_RULES_SUBJECTS)).toEqual([
      'create',
      'patch',
      'delete',
      'deleteAll',
      'import',
    ]);
    expect(stateChanging(PREVIEW_SUBJECTS)).toEqual(['backtest']);
    expect(stateChanging({ info: serviceInfoSubject('evaluator') })).toEqual([]);
  });

  it('counts a subject it does not know, or one outside its namespace, as state-changing', () => {
    expect(isStateChanging('t1.experiment.v1.policies.archive', namespace)).toBe(true);
    expect(isStateChanging(EXPERIMENT_SUBJECTS.getPolicy, namespace)).toBe(true);
  });

  it('keeps ids for as long as an assertion can be accepted', () => {
    // From iat - skew to exp + skew, exp - iat at most 60 s.
    expect(ASSERTION_IDS_KV.ttlMs).toBe(70_000);
  });

  it("remembers in a process each id until its assertion's end", () => {
    let now = 0;
    const ids = new ProcessAssertionIds(() => now);
    expect(ids.firstUse('a', 1_000)).toBe(true);
    expect(ids.firstUse('a', 1_000)).toBe(false);
    now = 1_000;
    expect(ids.firstUse('b', 2_000)).toBe(true);
    expect(ids.firstUse('a', 2_000)).toBe(true);
  });
});
