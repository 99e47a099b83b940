import { RuleError } from '../errors';
import { stringify } from '../values';
import type { ActionPlugin, LogLevel } from './types';

const LEVELS: LogLevel[] = ['debug', 'info', 'warning', 'error', 'critical'];

export const logAction: ActionPlugin = {
  name: 'log',
  params: [{ name: 'msg' }, { name: 'level', default: 'info' }],
  formatted: ['msg'],
  supportsEarly: true,
  run: (context, args) => {
    const asked = typeof args.level === 'string' ? args.level.toLowerCase() : args.level;
    const level = asked === 'warn' ? 'warning' : asked;
    if (!LEVELS.includes(level as LogLevel))
      throw new RuleError(`log level must be one of ${LEVELS.join(', ')}`);
    context.log(level as LogLevel, stringify(args.msg));
  },
};
