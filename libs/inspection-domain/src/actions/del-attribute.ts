import { RuleError } from '../errors';
import { getAt, pointerTokens, requireNode } from './node-helpers';
import type { ActionPlugin } from './types';

/** del-attribute(path): removes a node field; an unknown top-level field is an error, a missing sub-field is not. */
export const delAttributeAction: ActionPlugin = {
  name: 'del-attribute',
  params: [{ name: 'path' }],
  supportsEarly: false,
  run: (context, args) => {
    const node = requireNode(context);
    const tokens = pointerTokens(args.path);
    if (!Object.hasOwn(node, tokens[0])) throw new RuleError(`node has no attribute ${tokens[0]}`);
    if (getAt(node, tokens) === undefined) return;
    context.patchNode({ op: 'remove', path: args.path as string });
  },
};
