import { findPort, setOperations } from './node-helpers';
import type { ActionPlugin } from './types';

export const setPortAttributeAction: ActionPlugin = {
  name: 'set-port-attribute',
  params: [{ name: 'port_id' }, { name: 'path' }, { name: 'value' }],
  formatted: ['value'],
  supportsEarly: false,
  run: (context, args) => {
    const port = findPort(context, args.port_id);
    for (const operation of setOperations(port, args.path, args.value, 'port'))
      context.patchPort(port, operation);
  },
};
