import { cloneJson } from '../values';
import { extended, pointerTokens, setAt } from './node-helpers';
import type { ActionPlugin } from './types';

/** extend-plugin-data(path, value, unique=False): appends to a list in the plugin data. */
export const extendPluginDataAction: ActionPlugin = {
  name: 'extend-plugin-data',
  params: [{ name: 'path' }, { name: 'value' }, { name: 'unique', keywordOnly: true, default: false }],
  supportsEarly: true,
  run: (context, args) => {
    const tokens = pointerTokens(args.path, true);
    setAt(context.pluginData, tokens, extended(context.pluginData, tokens, cloneJson(args.value), args.unique));
    context.wrotePluginData(tokens);
  },
};
