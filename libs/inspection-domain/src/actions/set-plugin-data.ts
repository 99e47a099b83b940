import { cloneJson } from '../values';
import { pointerTokens, setAt } from './node-helpers';
import type { ActionPlugin } from './types';

/** set-plugin-data(path, value): sets a value in the plugin data, creating dicts on the way. */
export const setPluginDataAction: ActionPlugin = {
  name: 'set-plugin-data',
  params: [{ name: 'path' }, { name: 'value' }],
  supportsEarly: true,
  run: (context, args) => {
    const tokens = pointerTokens(args.path, true);
    setAt(context.pluginData, tokens, cloneJson(args.value));
    context.wrotePluginData(tokens);
  },
};
