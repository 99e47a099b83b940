import { deleteOperation, findPort } from './node-helpers';
import type { ActionPlugin } from './types';

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
