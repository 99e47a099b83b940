import { stringify } from '../values';
import type { ActionPlugin } from './types';

export const failAction: ActionPlugin = {
  name: 'fail',
  params: [{ name: 'msg' }],
  formatted: [],
  supportsEarly: true,
  run: (context, args) => context.fail(stringify(args.msg)),
};
