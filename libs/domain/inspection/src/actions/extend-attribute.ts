import { extendOperations, requireNode } from './node-helpers';
import type { ActionPlugin } from './types';

export const extendAttributeAction: ActionPlugin = {
  name: 'extend-attribute',
  params: [
    { name: 'path' },
    { name: 'value' },
    { name: 'unique', keywordOnly: true, default: false },
  ],
  formatted: ['value'],
  supportsEarly: false,
  run: (context, args) => {
    for (const operation of extendOperations(
      requireNode(context),
      args.path,
      args.value,
      args.unique,
      'node',
    ))
      context.patchNode(operation);
  },
};
