import { CliError } from './gateway';
import { PlanBinding, openPlan, sealPlan } from './plan-file';
import type { PlanModel } from './plan-model';

const body: PlanBinding = {
  planFileVersion: 1,
  kind: 'commit',
  gateway: 'http://127.0.0.1:3000',
  policy: 'projects/acme/locations/global/firewallPolicies/edge',
  livePolicyEtag: 'P1',
  experiment: 'projects/acme/locations/global/firewallPolicies/edge/experiments/rollout',
  experimentEtag: 'E1',
  reportEtag: 'AAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBB',
  createTime: '2026-12-07T00:00:00.000Z',
  model: { schemaVersion: 1, command: 'plan' } as PlanModel,
};

const refusal = (text: string, key?: string) => {
  try {
    openPlan(text, 'plan.json', key);
  } catch (error) {
    if (error instanceof CliError) return error.message;
    throw error;
  }
  return 'accepted';
};

describe('plan files', () => {
  it('open to exactly what was sealed', () => {
    expect(openPlan(JSON.stringify(sealPlan(body)), 'plan.json')).toEqual(body);
    expect(openPlan(JSON.stringify(sealPlan(body, 'k')), 'plan.json', 'k')).toEqual(body);
  });

  it('are refused once edited by hand (an etag, the experiment, the shown model), before anything is sent', () => {
    const sealed = sealPlan(body);
    for (const edit of [
      { experimentEtag: 'E2' },
      { livePolicyEtag: 'P9' },
      { experiment: `${body.policy}/experiments/other` },
      { model: { ...body.model, changes: false } },
    ]) {
      const edited = JSON.stringify({ ...sealed, body: { ...sealed.body, ...edit } });
      expect(refusal(edited)).toBe(
        'plan.json was changed after rollout plan wrote it (its sha256 digest does not match): nothing was applied; make a new plan.',
      );
    }
  });

  it('sealed with a key, are refused without it or with another, and a recomputed plain digest does not pass for one', () => {
    const keyed = JSON.stringify(sealPlan(body, 'pipeline-secret'));
    expect(refusal(keyed)).toMatch(/sealed with ROLLOUT_PLAN_KEY, which is not set here/);
    expect(refusal(keyed, 'another')).toMatch(/hmac-sha256 digest does not match/);
    const edited = { ...body, experimentEtag: 'E2' };
    const forged = {
      body: edited,
      digest: { ...sealPlan(edited).digest, algorithm: 'hmac-sha256' },
    };
    expect(refusal(JSON.stringify(forged), 'pipeline-secret')).toMatch(/digest does not match/);
  });

  it('are refused when not a plan file at all', () => {
    expect(refusal('not json')).toBe(
      'plan.json is not a plan file (not JSON): make one with rollout plan.',
    );
    expect(refusal('{"kind":"FirewallPolicy"}')).toBe(
      'plan.json is not a plan file: make one with rollout plan.',
    );
  });
});
