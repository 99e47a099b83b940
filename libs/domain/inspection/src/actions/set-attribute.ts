import { coerceNodeField } from '../node-fields';
import { attributePath } from '../paths';
import { requireNode, setOperations } from './node-helpers';
import type { ActionPlugin } from './types';

/** A top-level string field stores the value as Ironic's node object would: `5` is `"5"`, `false` is `"False"`. */
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
