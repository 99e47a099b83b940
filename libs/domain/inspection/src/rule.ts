import {
  INSPECTION_PHASES,
  InspectionPhase,
  InspectionRule,
  InspectionRuleStep,
  LOOP_MULTIPLE,
  StatusError,
} from '@rollout/contracts';
import { ACTIONS, REFUSED_ACTIONS } from './actions/registry';
import { CONDITIONS, parseConditionOp } from './conditions';
import { RuleError } from './errors';
import { ROOT_NAMES, literalText, templateRoots } from './interpolation';
import { bindArgs } from './params';
import { applyJsonPatch } from './json-pointer';
import { compileSafeRegex } from './safe-regex';
import { isPlainObject } from './values';

/** A stored or built-in rule: the contract's rule with its conditions and actions (never masked here). */
export interface RuleDefinition extends Omit<InspectionRule, 'conditions' | 'actions'> {
  conditions: InspectionRuleStep[];
  actions: InspectionRuleStep[];
}

/** The fields a client sets (create, import, or the result of a PATCH). */
export type RuleFields = Omit<RuleDefinition, 'created_at' | 'updated_at' | 'built_in' | 'uuid'> & {
  uuid?: string;
};

export const USER_PRIORITY = { min: 0, max: 9999 } as const;
export const MAX_STEPS = 100;
export const MAX_LOOP_ITEMS = 1000;
export const MAX_TEXT = 255;

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
const READ_ONLY = ['built_in', 'created_at', 'updated_at'];
const STEP_KEYS = ['op', 'args', 'loop', 'multiple'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** What `early` rules may read: there is no node yet. */
const EARLY_ROOTS = ['inventory', 'plugin_data', 'item'];

type Violation = { field: string; description: string };

export interface ValidateOptions {
  /** Built-in rules may use the reserved priorities (negative and ≥ 10000). */
  builtIn?: boolean;
  /** Scope given to a rule created without one (`default_scope`). */
  defaultScope?: string | null;
  /**
   * The rule is sensitive and its stored conditions and actions are in the input (a PATCH):
   * problems found in them are named without their content.
   */
  hideSteps?: boolean;
}

function invalid(prefix: string, violations: Violation[]): StatusError {
  return StatusError.invalidArgument(
    `${prefix}: ${violations.map((v) => `${v.field}: ${v.description}`).join('; ')}.`,
    violations,
  );
}

/** Whether a string or a key anywhere in the value holds a NUL character (Postgres JSON refuses them). */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(hasNul);
  if (isPlainObject(value))
    return Object.entries(value).some(([k, v]) => k.includes('\u0000') || hasNul(v));
  return false;
}

/**
 * Checks a rule as a client wrote it and returns it with defaults filled in, or throws
 * INVALID_ARGUMENT naming every problem (field path and what is wrong).
 */
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
    if (hasNul(input[field])) add(field, 'must not contain NUL characters');
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

function validateSteps(
  field: 'conditions' | 'actions',
  steps: unknown,
  phase: InspectionPhase,
  add: (field: string, description: string) => void,
): InspectionRuleStep[] {
  if (!Array.isArray(steps)) {
    add(field, 'must be a list');
    return [];
  }
  if (steps.length > MAX_STEPS) add(field, `at most ${MAX_STEPS} entries`);
  steps.forEach((step, index) => {
    const where = `${field}[${index}]`;
    try {
      validateStep(field, step, phase);
    } catch (error) {
      add(where, error instanceof RuleError ? error.message : 'is invalid');
    }
  });
  return steps as InspectionRuleStep[];
}

function validateStep(
  field: 'conditions' | 'actions',
  step: unknown,
  phase: InspectionPhase,
): void {
  if (!isPlainObject(step)) throw new RuleError('must be an object with "op"');
  const extra = Object.keys(step).filter((k) => !STEP_KEYS.includes(k));
  if (extra.length) throw new RuleError(`unknown field ${extra.join(', ')}`);
  if (typeof step.op !== 'string') throw new RuleError('"op" must be a string');
  const args = step.args ?? [];
  if (!Array.isArray(args) && !isPlainObject(args))
    throw new RuleError('"args" must be a list or a dict');
  const loop: unknown = step.loop;
  // Ironic loops only over a list or dict with something in it; anything else runs once.
  const loops =
    loop !== undefined &&
    !(Array.isArray(loop) && loop.length === 0) &&
    !(isPlainObject(loop) && Object.keys(loop).length === 0);
  let bound: Record<string, unknown>;
  let formatted: readonly string[];
  if (field === 'conditions') {
    const { name } = parseConditionOp(step.op);
    const plugin = CONDITIONS.get(name);
    if (!plugin)
      throw new RuleError(
        `unknown condition "${name}" (known: ${[...CONDITIONS.keys()].join(', ')})`,
      );
    if (
      plugin.params.some((param) => param.singleIsList) &&
      Array.isArray(args) &&
      args.length > 1 &&
      Array.isArray(args[0])
    ) {
      // Ironic reads [[a, b], x] as values [a, b] and force_strings x; this project as three values.
      throw new RuleError(
        `${name}: with a list first, write args as {values: [...], force_strings: ...} (Ironic and this project read [[...], ...] differently)`,
      );
    }
    bound = bindArgs(name, plugin.params, args);
    formatted = plugin.formatted;
    const values = bound.values;
    if (
      plugin.params.some((param) => param.singleIsList) &&
      !Array.isArray(values) &&
      !(typeof values === 'string' && templateRoots(values).length > 0)
    ) {
      throw new RuleError(
        `${name}: one argument is the list of values to compare (as Ironic's values), got ${JSON.stringify(values)}`,
      );
    }
    // A regex is checked here unless it is interpolated from the data (then when it runs). Outside
    // a loop Ironic uses it as written; in a loop it formats it, keeping it as written when that fails.
    const pattern = plugin.regex && bound[plugin.regex.param];
    let literal: string | null = null;
    if (typeof pattern === 'string') {
      const read = loops ? lenientLiteral(pattern) : pattern;
      literal = read === undefined ? pattern : read;
    }
    if (plugin.regex && literal !== null) compileSafeRegex(literal, plugin.regex.fullMatch);
  } else {
    const refused = REFUSED_ACTIONS.get(step.op);
    if (refused) throw new RuleError(refused);
    const action = ACTIONS.get(step.op);
    if (!action)
      throw new RuleError(`unknown action "${step.op}" (known: ${[...ACTIONS.keys()].join(', ')})`);
    if (phase === 'early' && !action.supportsEarly)
      throw new RuleError(`${step.op} cannot run in the early phase (no node yet)`);
    bound = bindArgs(step.op, action.params, args);
    formatted = action.formatted;
  }
  if (
    step.multiple !== undefined &&
    !(LOOP_MULTIPLE as readonly unknown[]).includes(step.multiple)
  ) {
    throw new RuleError(`"multiple" must be one of ${LOOP_MULTIPLE.join(', ')}`);
  }
  if (loop !== undefined) {
    if (typeof loop === 'string') {
      if (!/^\{[^{}]+\}$/.test(loop))
        throw new RuleError('"loop" must be a list, a dict or exactly one {…} giving one');
    } else if (!Array.isArray(loop) && !isPlainObject(loop)) {
      throw new RuleError('"loop" must be a list, a dict or exactly one {…} giving one');
    } else if (Array.isArray(loop) && loop.length > MAX_LOOP_ITEMS) {
      throw new RuleError(`"loop" has more than ${MAX_LOOP_ITEMS} items`);
    }
  }
  const allowed: readonly string[] = phase === 'early' ? EARLY_ROOTS : ROOT_NAMES;
  // What gets interpolated: the formatted arguments, and in a loop every argument (those
  // Ironic would not format are kept as written when they are no template).
  const strict = [formatted.map((name) => bound[name]), typeof loop === 'string' ? loop : []];
  const lenient = loops
    ? Object.entries(bound)
        .filter(([name]) => !formatted.includes(name))
        .map(([, value]) => value)
    : [];
  const texts = [
    ...strings(strict),
    ...[...strings(lenient)].filter((text) => lenientLiteral(text) !== undefined),
  ];
  for (const text of texts) {
    for (const root of templateRoots(text)) {
      if (!allowed.includes(root)) {
        throw new RuleError(
          phase === 'early' && (ROOT_NAMES as readonly string[]).includes(root)
            ? `{${root}…} is not available in the early phase`
            : `unknown name "${root}" (use ${allowed.join(', ')})`,
        );
      }
    }
  }
}

/** The text of a template without lookups, null when it has some, undefined when it is no template (used as written). */
function lenientLiteral(text: string): string | null | undefined {
  try {
    return literalText(text);
  } catch (error) {
    if (error instanceof RuleError) return undefined;
    throw error;
  }
}

function* strings(value: unknown): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (Array.isArray(value)) for (const item of value) yield* strings(item);
  else if (isPlainObject(value)) for (const item of Object.values(value)) yield* strings(item);
}

/** Higher priority first; equal priorities in creation order (ties keep the given order). */
export function orderRules<T extends Pick<RuleDefinition, 'priority' | 'created_at'>>(
  rules: readonly T[],
): T[] {
  return rules
    .map((rule, index) => ({ rule, index, created: Date.parse(rule.created_at) }))
    .sort((a, b) => b.rule.priority - a.rule.priority || a.created - b.created || a.index - b.index)
    .map(({ rule }) => rule);
}

/**
 * A condition or action as Ironic echoes it: `op` and `args` always, `loop` only when it
 * holds something, and a looping condition's `multiple` (`any` when not given); an action's
 * `multiple`, or a condition's without a loop, means nothing and is left out.
 */
function echoedStep(step: InspectionRuleStep, isCondition: boolean): InspectionRuleStep {
  const echoed: InspectionRuleStep = { op: step.op, args: step.args ?? [] };
  const loops = Array.isArray(step.loop)
    ? step.loop.length > 0
    : isPlainObject(step.loop)
      ? Object.keys(step.loop).length > 0
      : Boolean(step.loop);
  if (loops) {
    echoed.loop = step.loop;
    if (isCondition) echoed.multiple = step.multiple ?? 'any';
  }
  return echoed;
}

/** The rule as reads return it: a sensitive rule's conditions and actions are null. */
export function publicRule(rule: RuleDefinition, detail = true): InspectionRule {
  const { conditions, actions, ...summary } = rule;
  if (!detail) return summary;
  return {
    ...summary,
    conditions: rule.sensitive ? null : conditions.map((step) => echoedStep(step, true)),
    actions: rule.sensitive ? null : actions.map((step) => echoedStep(step, false)),
  };
}

const HIDDEN = /^\/(conditions|actions)(\/|$)/;

/**
 * Applies a JSON Patch (RFC 6902, as Ironic's PATCH) to a stored rule and checks the result:
 * read-only fields unchanged, `sensitive` never back to false, then the same validation as a
 * create. Returns the new editable fields, or throws INVALID_ARGUMENT. A sensitive rule's
 * conditions and actions cannot be read through a patch (`test`, or `copy`/`move` from them),
 * and problems are reported without their content.
 */
export function patchRule(before: RuleDefinition, patch: unknown): RuleFields {
  const hide = before.sensitive;
  if (hide && Array.isArray(patch)) {
    for (const op of patch) {
      const reads =
        isPlainObject(op) &&
        (op.op === 'test' ? op.path : op.op === 'copy' || op.op === 'move' ? op.from : undefined);
      if (typeof reads === 'string' && HIDDEN.test(reads)) {
        throw invalid('Invalid patch', [
          {
            field: 'patch',
            description: `a sensitive rule's conditions and actions cannot be read (${String(op.op)} ${reads})`,
          },
        ]);
      }
    }
  }
  let after: Record<string, unknown>;
  try {
    // Every field, the read-only ones included (changing them is refused below).
    after = applyJsonPatch({ ...before }, patch);
  } catch (error) {
    if (!(error instanceof RuleError)) throw error;
    // The messages name paths of the rule (`/actions/3/args/1 does not exist`): not for sensitive rules.
    throw invalid('Invalid patch', [
      { field: 'patch', description: hide ? 'does not apply to this rule' : error.message },
    ]);
  }
  const violations: Violation[] = [];
  for (const field of [...READ_ONLY, 'uuid'] as const) {
    if (JSON.stringify(after[field]) !== JSON.stringify(before[field as keyof RuleDefinition])) {
      violations.push({ field, description: `${field} cannot be changed` });
    }
  }
  if (before.sensitive && after.sensitive !== true) {
    violations.push({
      field: 'sensitive',
      description: 'a sensitive rule cannot be made non-sensitive',
    });
  }
  if (violations.length) throw invalid('Invalid patch', violations);
  const editable: Record<string, unknown> = {};
  for (const key of Object.keys(after))
    if (!READ_ONLY.includes(key) && key !== 'uuid') editable[key] = after[key];
  return validateRule(editable, { defaultScope: null, hideSteps: hide });
}
