import { MAX_EXPERIMENTS_PER_POLICY, Clock, PolicyContent, StatusError } from '@rollout/contracts';
import { checkEtag, masked, notFound, parseAnnotations, parseContent, parseMask } from './decide';
import type { ExperimentDomainEvent, ExperimentState, PolicyState } from './events';
import {
  PREVIEW_CONDITION_FIELDS,
  PreviewConditionField,
  PreviewConditions,
  parsePreviewConditions,
} from './preview-conditions';

/**
 * A copy of its source (the live policy, or `sourceRevision`), so committing an experiment
 * that sets only rules keeps the live display name and description. Rules are always the body's.
 */
export function decideCreateExperiment(
  state: ExperimentState,
  policy: PolicyState,
  experimentsOfPolicy: number,
  input: unknown,
  clock: Clock,
  source: PolicyContent = policy.content,
): ExperimentDomainEvent[] {
  if (!policy.exists) throw notFound('Firewall policy', policy.name);
  if (state.exists)
    throw StatusError.withReason(
      'ALREADY_EXISTS',
      `Experiment "${state.name}" already exists.`,
      'ALREADY_EXISTS',
    );
  if (experimentsOfPolicy >= MAX_EXPERIMENTS_PER_POLICY) {
    throw StatusError.withReason(
      'RESOURCE_EXHAUSTED',
      `Firewall policy "${policy.name}" already has ${MAX_EXPERIMENTS_PER_POLICY} experiments, the most allowed.`,
      'TOO_MANY_EXPERIMENTS',
      { limit: String(MAX_EXPERIMENTS_PER_POLICY) },
    );
  }
  const body = (input ?? {}) as Record<string, unknown>;
  const policyInput = (body.firewallPolicy ?? {}) as Record<string, unknown>;
  checkPolicyName(policyInput.name, policy.name);
  const { rules: _sourceRules, ...inherited } = source;
  const content = parseContent({ ...inherited, ...policyInput }, 'experiment.firewallPolicy');
  const annotations = parseAnnotations(body.annotations);
  const conditions = parsePreviewConditions(body);
  return [
    {
      type: 'ExperimentCreated',
      data: {
        policyName: policy.name,
        content,
        annotations,
        time: clock.now().toISOString(),
        ...someConditions(conditions),
      },
    },
  ];
}

function checkPolicyName(given: unknown, live: string) {
  if (given !== undefined && given !== live) {
    throw StatusError.invalidArgument(
      `firewallPolicy.name must be the live policy's name, "${live}".`,
      [
        {
          field: 'experiment.firewallPolicy.name',
          description: 'cannot differ from the live policy',
        },
      ],
    );
  }
}

const someConditions = (conditions: PreviewConditions) =>
  Object.keys(conditions).length ? { conditions } : {};

const EXPERIMENT_FIELDS: string[] = [
  'firewallPolicy',
  'firewallPolicy.rules',
  'firewallPolicy.displayName',
  'firewallPolicy.description',
  'firewallPolicy.name',
  'annotations',
  ...PREVIEW_CONDITION_FIELDS,
];
const isConditionField = (path: string): path is PreviewConditionField =>
  (PREVIEW_CONDITION_FIELDS as readonly string[]).includes(path);

export function decideUpdateExperiment(
  state: ExperimentState,
  input: Record<string, unknown>,
  updateMask: string | undefined,
  clock: Clock,
): ExperimentDomainEvent[] {
  if (!state.exists) throw notFound('Experiment', state.name);
  if (input.sourceRevision !== undefined)
    throw StatusError.invalidArgument('sourceRevision is given only when creating an experiment.', [
      { field: 'experiment.sourceRevision', description: 'creation only' },
    ]);
  checkEtag('etag', input.etag as string | undefined, state.name, state.version);
  const policyInput = (input.firewallPolicy ?? {}) as Record<string, unknown>;
  const paths =
    parseMask(updateMask) ??
    EXPERIMENT_FIELDS.filter(
      (f) =>
        (f === 'annotations' || isConditionField(f)
          ? input[f]
          : f === 'firewallPolicy'
            ? undefined
            : policyInput[f.slice('firewallPolicy.'.length)]) !== undefined,
    );
  const unknown = paths.filter((p) => !EXPERIMENT_FIELDS.includes(p));
  if (unknown.length) {
    throw StatusError.invalidArgument(
      `updateMask names fields that cannot be updated: ${unknown.join(', ')}.`,
      unknown.map((p) => ({ field: `updateMask.${p}`, description: 'not an updatable field' })),
    );
  }
  if (paths.includes('firewallPolicy') || paths.includes('firewallPolicy.name'))
    checkPolicyName(policyInput.name, state.policyName!);
  const policyPaths = paths.includes('firewallPolicy')
    ? ['displayName', 'description', 'rules']
    : paths
        .filter((p) => p.startsWith('firewallPolicy.') && p !== 'firewallPolicy.name')
        .map((p) => p.slice('firewallPolicy.'.length));
  const content = parseContent(
    masked(state.content, policyInput, policyPaths, 'firewallPolicy.'),
    'experiment.firewallPolicy',
  );
  const annotations = paths.includes('annotations')
    ? parseAnnotations(input.annotations)
    : state.annotations;
  const conditions = parsePreviewConditions(
    input,
    paths.filter(isConditionField),
    state.conditions,
  );
  const suspended = state.preview?.state === 'ACTIVE';
  return [
    {
      type: 'ExperimentUpdated',
      data: {
        content,
        annotations,
        time: clock.now().toISOString(),
        suspended,
        ...someConditions(conditions),
      },
    },
  ];
}

export function decideDeleteExperiment(
  state: ExperimentState,
  etag: string | undefined,
  clock: Clock,
): ExperimentDomainEvent[] {
  if (!state.exists) throw notFound('Experiment', state.name);
  checkEtag('etag', etag, state.name, state.version);
  return [{ type: 'ExperimentDeleted', data: { time: clock.now().toISOString() } }];
}

/** experiment.v1 1.4.0. */
export interface PreviewCommandOptions {
  etag?: string;
  reason?: string;
}

const MAX_REASON = 500;

function previewReason(reason: unknown): { reason?: string } {
  if (reason === undefined || reason === null || reason === '') return {};
  if (typeof reason !== 'string' || reason.length > MAX_REASON) {
    throw StatusError.invalidArgument(
      `reason must be a string of at most ${MAX_REASON} characters.`,
      [{ field: 'reason', description: `at most ${MAX_REASON} characters` }],
    );
  }
  return { reason };
}

export function decideStartPreview(
  state: ExperimentState,
  clock: Clock,
  options: PreviewCommandOptions = {},
): ExperimentDomainEvent[] {
  if (!state.exists) throw notFound('Experiment', state.name);
  checkEtag('etag', options.etag, state.name, state.version);
  if (state.preview?.state === 'ACTIVE') return [];
  return [
    {
      type: 'PreviewStarted',
      data: { time: clock.now().toISOString(), ...previewReason(options.reason) },
    },
  ];
}

export function decideStopPreview(
  state: ExperimentState,
  clock: Clock,
  options: PreviewCommandOptions = {},
): ExperimentDomainEvent[] {
  if (!state.exists) throw notFound('Experiment', state.name);
  checkEtag('etag', options.etag, state.name, state.version);
  if (state.preview?.state !== 'ACTIVE') return [];
  return [
    {
      type: 'PreviewStopped',
      data: { time: clock.now().toISOString(), ...previewReason(options.reason) },
    },
  ];
}
