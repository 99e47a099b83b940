import { coerceNodeField } from '../node-fields';
import { attributePath } from '../paths';
import { requireNode, setOperations } from './node-helpers';
import type { ActionPlugin } from './types';

/**
 * set-attribute(path, value): sets a node field (`/a/b`, `a/b` or `a.b`), as JSON patch
 * operations on the node. A top-level field takes the value as Ironic's node object would store
 * it: on a string field (`/name`, `/driver`, …) `5` is `"5"` and `false` is `"False"`.
 */
export const setAttributeAction: ActionPlugin = {
  name: 'set-attribute',
  params: [{ name: 'path' }, { name: 'value' }],
  formatted: ['value'],
  supportsEarly: false,
  run: (context, args) => {
    const node = requireNode(context);
    const parts = attributePath(args.path);
    const value = parts.length === 1 ? coerceNodeField(parts[0], args.value) : args.value;
    for (const operation of setOperations(node, args.path, value, 'node'))
      context.patchNode(operation);
  },
};
