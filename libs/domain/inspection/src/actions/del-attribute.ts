import { deleteOperation, requireNode } from './node-helpers';
import type { ActionPlugin } from './types';

/** A path that does not exist is an error, as in Ironic. */
export const delAttributeAction: ActionPlugin = {
  name: 'del-attribute',
  params: [{ name: 'path' }],
  formatted: [],
  supportsEarly: false,
  run: (context, args) =>
    context.patchNode(deleteOperation(requireNode(context), args.path, 'node')),
};
