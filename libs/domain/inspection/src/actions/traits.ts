import { RuleError } from '../errors';
import { typeName } from '../values';
import { requireNode } from './node-helpers';
import type { ActionContext, ActionPlugin } from './types';

export const MAX_TRAITS_PER_NODE = 50;

function traitName(name: unknown): string {
  if (typeof name !== 'string' || name === '' || name.length > 255)
    throw new RuleError(`a trait name is a string of 1 to 255 characters, got ${typeName(name)}`);
  return name;
}

function traits(context: ActionContext): string[] {
  const current = requireNode(context).traits;
  if (current === undefined || current === null) return [];
  if (!Array.isArray(current))
    throw new RuleError(`node /traits is a ${typeName(current)}, not a list`);
  return current as string[];
}

/** Already there: nothing changes, as Ironic's idempotent add. */
export const addTraitAction: ActionPlugin = {
  name: 'add-trait',
  params: [{ name: 'name' }],
  formatted: [],
  supportsEarly: false,
  run: (context, args) => {
    const name = traitName(args.name);
    const current = traits(context);
    if (current.includes(name)) return;
    if (current.length >= MAX_TRAITS_PER_NODE)
      throw new RuleError(`a node has at most ${MAX_TRAITS_PER_NODE} traits`);
    context.patchNode({ op: 'add', path: '/traits', value: [...current, name] });
  },
};

/** A trait the node lacks is only logged, as in Ironic. */
export const removeTraitAction: ActionPlugin = {
  name: 'remove-trait',
  params: [{ name: 'name' }],
  formatted: [],
  supportsEarly: false,
  run: (context, args) => {
    const name = traitName(args.name);
    const current = traits(context);
    if (!current.includes(name)) {
      context.log('warning', `Failed to remove trait ${name}: the node does not have it`);
      return;
    }
    context.patchNode({
      op: 'add',
      path: '/traits',
      value: current.filter((trait) => trait !== name),
    });
  },
};
