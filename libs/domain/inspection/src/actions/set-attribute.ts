import { requireNode, setOperations } from './node-helpers';
import type { ActionPlugin } from './types';

/** set-attribute(path, value): sets a node field (`/a/b`, `a/b` or `a.b`), as JSON patch operations on the node. */
export const setAttributeAction: ActionPlugin = {
  name: 'set-attribute',
  params: [{ name: 'path' }, { name: 'value' }],
  formatted: ['value'],
  supportsEarly: false,
  run: (context, args) => {
    for (const operation of setOperations(requireNode(context), args.path, args.value, 'node'))
      context.patchNode(operation);
  },
};
