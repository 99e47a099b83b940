import { RuleError } from './errors';
import { isPlainObject } from './values';

/** As a Python signature in Ironic; `args` may be a list (positional) or a dict (by name). */
export interface ParamSpec {
  name: string;
  default?: unknown;
  /** `*values`. */
  variadic?: boolean;
  minItems?: number;
  keywordOnly?: boolean;
  /** A single positional argument is the whole list (Ironic's `values`). */
  singleIsList?: boolean;
  /** As Ironic's required `values`; checked when a rule is saved. */
  required?: boolean;
}

export type BoundArgs = Record<string, unknown>;

/** `strict` (rule saved) also refuses a missing required variadic; rules stored before that check run as they did. */
export function bindArgs(
  op: string,
  params: ParamSpec[],
  args: unknown,
  strict = false,
): BoundArgs {
  const bound: BoundArgs = {};
  if (args === undefined || args === null) args = [];
  if (Array.isArray(args)) {
    const positional = params.filter((p) => !p.keywordOnly);
    let i = 0;
    for (const param of positional) {
      if (param.variadic) {
        if (i < args.length || !(strict && param.required))
          bound[param.name] = param.singleIsList && args.length - i === 1 ? args[i] : args.slice(i);
        i = args.length;
      } else if (i < args.length) {
        bound[param.name] = args[i++];
      }
    }
    if (i < args.length)
      throw new RuleError(`${op} takes at most ${positional.length} arguments, got ${args.length}`);
  } else if (isPlainObject(args)) {
    for (const [name, value] of Object.entries(args)) {
      const param = params.find((p) => p.name === name);
      if (!param)
        throw new RuleError(
          `${op} has no argument "${name}" (it takes ${params.map((p) => p.name).join(', ')})`,
        );
      if (param.variadic && !Array.isArray(value))
        throw new RuleError(`${op}: "${name}" must be a list`);
      bound[name] = value;
    }
  } else {
    throw new RuleError(`${op}: args must be a list or a dict`);
  }
  for (const param of params) {
    if (Object.hasOwn(bound, param.name)) continue;
    if (param.variadic && !(strict && param.required)) bound[param.name] = [];
    else if ('default' in param) bound[param.name] = param.default;
    else throw new RuleError(`${op} is missing its "${param.name}" argument`);
  }
  for (const param of params) {
    const given = bound[param.name];
    if (param.minItems !== undefined && Array.isArray(given) && given.length < param.minItems) {
      throw new RuleError(`${op} needs at least ${param.minItems} values, got ${given.length}`);
    }
  }
  return bound;
}
