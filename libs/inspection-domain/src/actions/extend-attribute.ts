import { cloneJson } from '../values';
import { extended, pointerTokens, requireNode } from './node-helpers';
import type { ActionPlugin } from './types';

/** extend-attribute(path, value, unique=False): appends to a list field of the node. */
export const extendAttributeAction: ActionPlugin = {
  name: 'extend-attribute',
  params: [{ name: 'path' }, { name: 'value' }, { name: 'unique', keywordOnly: true, default: false }],
  supportsEarly: false,
  run: (context, args) => {
    const node = requireNode(context);
    const list = extended(node, pointerTokens(args.path), cloneJson(args.value), args.unique);
    context.patchNode({ op: 'add', path: args.path as string, value: list });
  },
};
