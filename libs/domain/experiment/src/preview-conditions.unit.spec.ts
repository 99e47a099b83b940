import { StatusError } from '@rollout/contracts';
import type { Clock } from '@rollout/contracts';
import {
  decideCreateExperiment,
  decideStopPreview,
  decideUpdateExperiment,
} from './decide-experiment';
import type { ExperimentDomainEvent, PolicyDomainEvent } from './events';
import { etagOf, evolveExperiment, evolvePolicy, initialExperiment, initialPolicy } from './evolve';
import { experimentView } from './views';

const POLICY = 'projects/p/locations/global/firewallPolicies/web';
const EXPERIMENT = `${POLICY}/experiments/tighten`;
const T0 = '2026-11-22T10:00:00.000Z';
const clock: Clock = { now: () => new Date(T0) };
const policy = evolvePolicy(initialPolicy(POLICY), {
  type: 'PolicyCreated',
  data: { content: { rules: [] }, time: T0 },
} satisfies PolicyDomainEvent);
const conditions = {
  readinessGates: [
    { minPreviewDuration: '24h' },
    { minEvaluated: 100000 },
    { maxAllowToDenyShare: 0.001 },
    { noDenyToAllowFrom: '0.0.0.0/0' },
    { maxCompletenessLoss: 0 },
  ],
  stopAfter: { duration: '7d', evaluatedEvents: 1000000 },
  breaker: { maxAllowToDenyShare: 0.01, minEvaluated: 500 },
};

function violations(fn: () => unknown): { field: string; description: string }[] {
  try {
    fn();
  } catch (error) {
    expect((error as StatusError).status).toBe('INVALID_ARGUMENT');
    return (
      (error as StatusError).details[0] as {
        fieldViolations: { field: string; description: string }[];
      }
    ).fieldViolations;
  }
  throw new Error('expected INVALID_ARGUMENT');
}

const create = (body: object) =>
  decideCreateExperiment(
    initialExperiment(EXPERIMENT),
    policy,
    0,
    { firewallPolicy: { rules: [] }, ...body },
    clock,
  );

describe('preview conditions of an experiment', () => {
  it('keeps readiness gates, stopAfter and breaker on create and shows them on the resource', () => {
    const [event] = create(conditions);
    const view = experimentView(evolveExperiment(initialExperiment(EXPERIMENT), event));
    expect(view).toMatchObject(conditions);
  });

  it('names every bad gate and field', () => {
    expect(
      violations(() =>
        create({
          readinessGates: [
            { minEvaluated: 0 },
            { minEvaluated: 5, maxCompletenessLoss: 0 },
            { noDenyToAllowFrom: '10.0.0.1' },
            { minPreviewDuration: '1 day' },
            { colour: 'red' },
          ],
          stopAfter: {},
          breaker: { maxAllowToDenyShare: 2 },
        }),
      ),
    ).toEqual([
      {
        field: 'experiment.readinessGates[0].minEvaluated',
        description: 'must be a whole number of events, at least 1',
      },
      {
        field: 'experiment.readinessGates[1]',
        description:
          'a gate sets exactly one of minPreviewDuration, minEvaluated, maxAllowToDenyShare, noDenyToAllowFrom, maxCompletenessLoss',
      },
      {
        field: 'experiment.readinessGates[2].noDenyToAllowFrom',
        description: 'must be a CIDR range ("0.0.0.0/0", "10.0.0.0/8", "::/0")',
      },
      {
        field: 'experiment.readinessGates[3].minPreviewDuration',
        description:
          'must be a whole number of s, m, h or d, above zero ("86400s", "90m", "24h", "7d")',
      },
      {
        field: 'experiment.readinessGates[4].colour',
        description:
          'not a gate: use one of minPreviewDuration, minEvaluated, maxAllowToDenyShare, noDenyToAllowFrom, maxCompletenessLoss',
      },
      { field: 'experiment.stopAfter', description: 'set duration, evaluatedEvents, or both' },
      {
        field: 'experiment.breaker.maxAllowToDenyShare',
        description: 'required: a share between 0 and 1 (0.01 is 1%)',
      },
    ]);
  });

  it('updates one condition by mask and keeps the others; null clears it', () => {
    const state = evolveExperiment(initialExperiment(EXPERIMENT), create(conditions)[0]);
    const [updated] = decideUpdateExperiment(
      state,
      { stopAfter: { evaluatedEvents: 10 } },
      'stopAfter',
      clock,
    );
    const after = evolveExperiment(state, updated);
    expect(after.conditions).toEqual({ ...conditions, stopAfter: { evaluatedEvents: 10 } });
    const [cleared] = decideUpdateExperiment(after, { breaker: null }, undefined, clock);
    expect(evolveExperiment(after, cleared).conditions).toEqual({
      readinessGates: conditions.readinessGates,
      stopAfter: { evaluatedEvents: 10 },
    });
  });

  it('stops a preview only at the etag given, and records the reason', () => {
    const events: ExperimentDomainEvent[] = [
      create({})[0],
      { type: 'PreviewStarted', data: { time: T0 } },
    ];
    const state = events.reduce(evolveExperiment, initialExperiment(EXPERIMENT));
    expect(() => decideStopPreview(state, clock, { etag: etagOf(EXPERIMENT, 1) })).toThrow(
      expect.objectContaining({ status: 'ABORTED' }),
    );
    expect(
      decideStopPreview(state, clock, {
        etag: etagOf(EXPERIMENT, 2),
        reason: 'stopAfter: 10 events evaluated, the limit is 10',
      }),
    ).toEqual([
      {
        type: 'PreviewStopped',
        data: { time: T0, reason: 'stopAfter: 10 events evaluated, the limit is 10' },
      },
    ]);
  });
});
