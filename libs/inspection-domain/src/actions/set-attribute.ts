import { cloneJson } from '../values';
import { pointerTokens, requireNode } from './node-helpers';
import type { ActionPlugin } from './types';

/** set-attribute(path, value): sets a node field, as a JSON patch `add` on the node. */
export const setAttributeAction: ActionPlugin = {
  name: 'set-attribute',
  params: [{ name: 'path' }, { name: 'value' }],
  supportsEarly: false,
  run: (context, args) => {
    requireNode(context);
    pointerTokens(args.path);
    context.patchNode({ op: 'add', path: args.path as string, value: cloneJson(args.value) });
  },
};
