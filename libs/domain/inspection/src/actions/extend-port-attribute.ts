import { extendOperations, findPort } from './node-helpers';
import type { ActionPlugin } from './types';

export const extendPortAttributeAction: ActionPlugin = {
  name: 'extend-port-attribute',
  params: [
    { name: 'port_id' },
    { name: 'path' },
    { name: 'value' },
    { name: 'unique', keywordOnly: true, default: false },
  ],
  formatted: ['value'],
  supportsEarly: false,
  run: (context, args) => {
    const port = findPort(context, args.port_id);
    for (const operation of extendOperations(port, args.path, args.value, args.unique, 'port'))
      context.patchPort(port, operation);
  },
};
