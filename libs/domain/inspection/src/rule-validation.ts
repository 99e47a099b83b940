import { INSPECTION_PHASES, InspectionPhase, StatusError } from '@rollout/contracts';
import { MAX_TEXT, RuleFields, USER_PRIORITY } from './rule';
import { validateSteps } from './step-validation';
import { isPlainObject } from './values';

const EDITABLE = [
  'uuid',
  'priority',
  'description',
  'scope',
  'sensitive',
  'phase',
  'conditions',
  'actions',
];
/** A patch must leave these as they are. */
export const READ_ONLY = ['built_in', 'created_at', 'updated_at'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type Violation = { field: string; description: string };

export interface ValidateOptions {
  /** Negative and ≥ 10000 priorities are reserved for built-in rules. */
  builtIn?: boolean;
  defaultScope?: string | null;
  /** A sensitive rule's stored steps are in the input (a PATCH): problems omit their content. */
  hideSteps?: boolean;
}

export function invalid(prefix: string, violations: Violation[]): StatusError {
  return StatusError.invalidArgument(
    `${prefix}: ${violations.map((v) => `${v.field}: ${v.description}`).join('; ')}.`,
    violations,
  );
}

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Postgres JSON refuses NUL and unpaired surrogates; YAML imports reach here with either. */
function unstorableText(value: unknown): string | undefined {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return 'must not contain NUL characters';
    if (UNPAIRED_SURROGATE.test(value)) return 'must not contain unpaired UTF-16 surrogates';
    return undefined;
  }
  const children = Array.isArray(value)
    ? value
    : isPlainObject(value)
      ? Object.entries(value).flat()
      : [];
  for (const child of children) {
    const problem = unstorableText(child);
    if (problem) return problem;
  }
  return undefined;
}

export function validateRule(input: unknown, options: ValidateOptions = {}): RuleFields {
  const violations: Violation[] = [];
  const add = (field: string, description: string) => violations.push({ field, description });
  if (!isPlainObject(input))
    throw StatusError.invalidArgument('A rule must be a JSON object.', [
      { field: '', description: 'must be an object' },
    ]);
  for (const key of Object.keys(input)) {
    if (READ_ONLY.includes(key)) add(key, `${key} is read-only`);
    else if (!EDITABLE.includes(key)) add(key, 'unknown field');
  }
  const priority = input.priority === undefined ? 0 : input.priority;
  if (typeof priority !== 'number' || !Number.isInteger(priority))
    add('priority', 'must be an integer');
  else if (!options.builtIn && (priority < USER_PRIORITY.min || priority > USER_PRIORITY.max)) {
    add(
      'priority',
      `must be between ${USER_PRIORITY.min} and ${USER_PRIORITY.max} (others are reserved for built-in rules)`,
    );
  }
  // Absent is `main`; null is refused, as Ironic refuses it ("Invalid phase: None").
  const phase = input.phase === undefined ? 'main' : input.phase;
  if (!INSPECTION_PHASES.includes(phase as InspectionPhase))
    add('phase', `must be one of ${INSPECTION_PHASES.join(', ')}`);
  // A null uuid or sensitive flag is what Ironic's schema allows for "not given".
  const uuid = input.uuid ?? undefined;
  if (uuid !== undefined && (typeof uuid !== 'string' || !UUID.test(uuid)))
    add('uuid', 'must be a UUID');
  for (const field of ['description', 'scope'] as const) {
    const value = input[field];
    if (
      value !== undefined &&
      value !== null &&
      (typeof value !== 'string' || value.length > MAX_TEXT)
    ) {
      add(field, `must be a string of at most ${MAX_TEXT} characters`);
    }
  }
  if (
    input.sensitive !== undefined &&
    input.sensitive !== null &&
    typeof input.sensitive !== 'boolean'
  )
    add('sensitive', 'must be true or false');
  if (input.actions === undefined || input.actions === null) add('actions', 'is required');
  // Ironic's schema: conditions may be left out, but not be null.
  if (input.conditions === null) add('conditions', 'must be a list');
  const validPhase = (INSPECTION_PHASES as readonly unknown[]).includes(phase)
    ? (phase as InspectionPhase)
    : 'main';
  const stepProblem = options.hideSteps
    ? (field: string) => add(field, 'is invalid (details hidden: the rule is sensitive)')
    : add;
  const conditions = validateSteps('conditions', input.conditions ?? [], validPhase, stepProblem);
  const actions = validateSteps('actions', input.actions ?? [], validPhase, stepProblem);
  if (Array.isArray(input.actions) && input.actions.length === 0)
    add('actions', 'must not be empty');
  for (const field of ['description', 'scope', 'conditions', 'actions'] as const) {
    const problem = unstorableText(input[field]);
    if (problem) add(field, problem);
  }
  if (violations.length) throw invalid('Invalid inspection rule', violations);
  const scope =
    (input.scope as string | null | undefined) ??
    (options.builtIn ? null : (options.defaultScope ?? null));
  return {
    ...(uuid !== undefined ? { uuid: (uuid as string).toLowerCase() } : {}),
    priority: priority as number,
    description: (input.description as string | null | undefined) ?? null,
    scope,
    sensitive: (input.sensitive as boolean | null | undefined) ?? false,
    phase: validPhase,
    conditions,
    actions,
  };
}
