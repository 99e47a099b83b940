import { findPort, setOperations } from './node-helpers';
import type { ActionPlugin } from './types';

/** set-port-attribute(port_id, path, value): sets a field of the port with that MAC or uuid. */
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
