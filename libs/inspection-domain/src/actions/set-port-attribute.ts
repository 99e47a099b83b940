import { cloneJson } from '../values';
import { findPort, pointerTokens } from './node-helpers';
import type { ActionPlugin } from './types';

/** set-port-attribute(port_id, path, value): sets a field of the port with that MAC or uuid. */
export const setPortAttributeAction: ActionPlugin = {
  name: 'set-port-attribute',
  params: [{ name: 'port_id' }, { name: 'path' }, { name: 'value' }],
  supportsEarly: false,
  run: (context, args) => {
    const port = findPort(context, args.port_id);
    pointerTokens(args.path);
    context.patchPort(port, { op: 'add', path: args.path as string, value: cloneJson(args.value) });
  },
};
