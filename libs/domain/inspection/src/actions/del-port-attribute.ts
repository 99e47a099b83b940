import { deleteOperation, findPort } from './node-helpers';
import type { ActionPlugin } from './types';

/** del-port-attribute(port_id, path): removes a field of a port; a path that does not exist is an error. */
export const delPortAttributeAction: ActionPlugin = {
  name: 'del-port-attribute',
  params: [{ name: 'port_id' }, { name: 'path' }],
  formatted: [],
  supportsEarly: false,
  run: (context, args) => {
    const port = findPort(context, args.port_id);
    context.patchPort(port, deleteOperation(port, args.path, 'port'));
  },
};
