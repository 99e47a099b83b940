import { InspectionPhase, InspectionRuleStep, LOOP_MULTIPLE } from '@rollout/contracts';
import { ACTIONS, REFUSED_ACTIONS } from './actions/registry';
import { CONDITIONS, parseConditionOp } from './conditions';
import { RuleError } from './errors';
import { ROOT_NAMES, literalText, templateRoots } from './interpolation';
import { bindArgs } from './params';
import { MAX_LOOP_ITEMS, MAX_STEPS } from './rule';
import { compileSafeRegex } from './safe-regex';
import { isPlainObject } from './values';

const STEP_KEYS = ['op', 'args', 'loop', 'multiple'];
const EARLY_ROOTS = ['inventory', 'plugin_data', 'item'];

export function validateSteps(
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
    bound = bindArgs(name, plugin.params, args, true);
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
    // An interpolated regex is checked when it runs.
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
    bound = bindArgs(step.op, action.params, args, true);
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
  // In a loop every argument is interpolated (Ironic keeps what it cannot format as written).
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

/** undefined when it is no template (used as written). */
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
