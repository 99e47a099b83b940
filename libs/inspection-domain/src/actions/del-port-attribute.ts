import { RuleError } from '../errors';
import { findPort, getAt, pointerTokens } from './node-helpers';
import type { ActionPlugin } from './types';

/** del-port-attribute(port_id, path): removes a field of a port. */
export const delPortAttributeAction: ActionPlugin = {
  name: 'del-port-attribute',
  params: [{ name: 'port_id' }, { name: 'path' }],
  supportsEarly: false,
  run: (context, args) => {
    const port = findPort(context, args.port_id);
    const tokens = pointerTokens(args.path);
    if (!Object.hasOwn(port, tokens[0])) throw new RuleError(`port has no attribute ${tokens[0]}`);
    if (getAt(port, tokens) === undefined) return;
    context.patchPort(port, { op: 'remove', path: args.path as string });
  },
};
