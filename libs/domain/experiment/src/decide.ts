import { MAX_EXPERIMENTS_PER_POLICY, PolicyContent, StatusError } from '@rollout/contracts';
import { validatePolicyContent } from '@rollout/domain/firewall';
import type {
  ExperimentDomainEvent,
  ExperimentState,
  PolicyDomainEvent,
  PolicyState,
} from './events';
import { etagOf } from './evolve';
import {
  PREVIEW_CONDITION_FIELDS,
  PreviewConditionField,
  PreviewConditions,
  parsePreviewConditions,
} from './preview-conditions';

/** Time is given, never read: decisions are exact in tests. */
export interface Clock {
  now(): Date;
}

const MAX_ANNOTATIONS = 64;
const MAX_ANNOTATION_KEY = 63;
const MAX_ANNOTATIONS_BYTES = 16 * 1024;

/** A resource that does not exist (or no longer does). */
export function notFound(what: string, name: string): StatusError {
  return StatusError.withReason('NOT_FOUND', `${what} "${name}" not found.`, 'NOT_FOUND', {
    resource: name,
  });
}

function checkEtag(field: string, given: string | undefined, name: string, version: number) {
  if (given !== undefined && given !== etagOf(name, version)) {
    throw StatusError.withReason(
      'ABORTED',
      `${field} does not match the current version of "${name}".`,
      'ETAG_MISMATCH',
      {
        resource: name,
      },
    );
  }
}

export function parseContent(input: unknown, field: string): PolicyContent {
  const { content, violations } = validatePolicyContent(input, field);
  if (!content)
    throw StatusError.invalidArgument(`${field} is not a valid firewall policy.`, violations);
  return content;
}

export function parseAnnotations(input: unknown): Record<string, string> {
  if (input === undefined || input === null) return {};
  const field = 'annotations';
  if (typeof input !== 'object' || Array.isArray(input))
    throw StatusError.invalidArgument('annotations must be a map of strings.', [
      { field, description: 'must be an object' },
    ]);
  const entries = Object.entries(input as Record<string, unknown>);
  const violations = [];
  if (entries.length > MAX_ANNOTATIONS)
    violations.push({ field, description: `at most ${MAX_ANNOTATIONS} entries` });
  let bytes = 0;
  for (const [key, value] of entries) {
    if (key.length === 0 || key.length > MAX_ANNOTATION_KEY)
      violations.push({
        field: `${field}.${key.slice(0, 80)}`,
        description: `keys are 1-${MAX_ANNOTATION_KEY} characters`,
      });
    if (typeof value !== 'string')
      violations.push({ field: `${field}.${key.slice(0, 80)}`, description: 'values are strings' });
    bytes += Buffer.byteLength(key) + Buffer.byteLength(String(value));
  }
  if (bytes > MAX_ANNOTATIONS_BYTES)
    violations.push({ field, description: 'at most 16 KiB in all' });
  if (violations.length)
    throw StatusError.invalidArgument('annotations are not valid.', violations.slice(0, 20));
  return input as Record<string, string>;
}

// ---- live policies

export function decideCreatePolicy(
  state: PolicyState,
  input: unknown,
  clock: Clock,
): PolicyDomainEvent[] {
  if (state.exists)
    throw StatusError.withReason(
      'ALREADY_EXISTS',
      `Firewall policy "${state.name}" already exists.`,
      'ALREADY_EXISTS',
    );
  const content = parseContent(input, 'firewallPolicy');
  return [{ type: 'PolicyCreated', data: { content, time: clock.now().toISOString() } }];
}

/** Applies an update mask (AIP-134); without one, every field present in the input is updated. */
function masked(
  current: PolicyContent,
  input: Record<string, unknown>,
  paths: string[] | undefined,
  prefix: string,
): unknown {
  const fields = ['displayName', 'description', 'rules'];
  const chosen = paths ?? fields.filter((f) => input[f] !== undefined);
  const unknown = chosen.filter((p) => !fields.includes(p));
  if (unknown.length) {
    throw StatusError.invalidArgument(
      `updateMask names fields that cannot be updated: ${unknown.join(', ')}.`,
      unknown.map((p) => ({
        field: `updateMask.${prefix}${p}`,
        description: 'not an updatable field',
      })),
    );
  }
  const next: Record<string, unknown> = { ...current };
  for (const field of chosen) {
    if (input[field] === undefined) delete next[field];
    else next[field] = input[field];
  }
  return next;
}

export function parseMask(updateMask: string | undefined): string[] | undefined {
  if (updateMask === undefined || updateMask === '') return undefined;
  if (updateMask === '*') return undefined;
  return updateMask
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

export function decideUpdatePolicy(
  state: PolicyState,
  input: Record<string, unknown>,
  updateMask: string | undefined,
  clock: Clock,
): PolicyDomainEvent[] {
  if (!state.exists) throw notFound('Firewall policy', state.name);
  checkEtag('etag', input.etag as string | undefined, state.name, state.version);
  const content = parseContent(
    masked(state.content, input, parseMask(updateMask), ''),
    'firewallPolicy',
  );
  return [{ type: 'PolicyUpdated', data: { content, time: clock.now().toISOString() } }];
}

export function decideDeletePolicy(
  state: PolicyState,
  etag: string | undefined,
  clock: Clock,
): PolicyDomainEvent[] {
  if (!state.exists) throw notFound('Firewall policy', state.name);
  checkEtag('etag', etag, state.name, state.version);
  return [{ type: 'PolicyDeleted', data: { time: clock.now().toISOString() } }];
}

// ---- experiments

export function decideCreateExperiment(
  state: ExperimentState,
  policy: PolicyState,
  experimentsOfPolicy: number,
  input: unknown,
  clock: Clock,
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
  const content = parseContent(policyInput, 'experiment.firewallPolicy');
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

/** Only conditions that are set go into an event. */
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

/** What startPreview and stopPreview may add (experiment.v1 1.4.0): the version acted on, and why. */
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

/** Commit: the experiment's policy becomes the live policy, and the experiment is gone. */
export function decideCommit(
  experiment: ExperimentState,
  policy: PolicyState,
  request: { etag?: string; livePolicyEtag?: string },
  clock: Clock,
): { experiment: ExperimentDomainEvent[]; policy: PolicyDomainEvent[] } {
  if (request.etag === undefined || request.etag === '') {
    throw StatusError.invalidArgument('etag is required to commit.', [
      { field: 'etag', description: 'required' },
    ]);
  }
  if (!experiment.exists) throw notFound('Experiment', experiment.name);
  if (!policy.exists) throw notFound('Firewall policy', policy.name);
  checkEtag('etag', request.etag, experiment.name, experiment.version);
  checkEtag('livePolicyEtag', request.livePolicyEtag, policy.name, policy.version);
  const time = clock.now().toISOString();
  return {
    experiment: [{ type: 'ExperimentCommitted', data: { time } }],
    policy: [
      {
        type: 'PolicyUpdated',
        data: { content: experiment.content, time, committedExperiment: experiment.name },
      },
    ],
  };
}
