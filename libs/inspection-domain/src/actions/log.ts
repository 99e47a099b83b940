import { RuleError } from '../errors';
import { stringify } from '../values';
import type { ActionPlugin, LogLevel } from './types';

const LEVELS: LogLevel[] = ['debug', 'info', 'warning', 'error'];

/** log(msg, level="info"): writes the message to the service log. */
export const logAction: ActionPlugin = {
  name: 'log',
  params: [{ name: 'msg' }, { name: 'level', default: 'info' }],
  supportsEarly: true,
  run: (context, args) => {
    const level = args.level === 'warn' ? 'warning' : args.level;
    if (!LEVELS.includes(level as LogLevel)) throw new RuleError(`log level must be one of ${LEVELS.join(', ')}`);
    context.log(level as LogLevel, stringify(args.msg));
  },
};
