import { cloneJson } from '../values';
import { extended, findPort, pointerTokens } from './node-helpers';
import type { ActionPlugin } from './types';

/** extend-port-attribute(port_id, path, value, unique=False): appends to a list field of a port. */
export const extendPortAttributeAction: ActionPlugin = {
  name: 'extend-port-attribute',
  params: [
    { name: 'port_id' },
    { name: 'path' },
    { name: 'value' },
    { name: 'unique', keywordOnly: true, default: false },
  ],
  supportsEarly: false,
  run: (context, args) => {
    const port = findPort(context, args.port_id);
    const list = extended(port, pointerTokens(args.path), cloneJson(args.value), args.unique);
    context.patchPort(port, { op: 'add', path: args.path as string, value: list });
  },
};
