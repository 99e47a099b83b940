import { pointerTokens, removeAt } from './node-helpers';
import type { ActionPlugin } from './types';

/** unset-plugin-data(path): removes a value from the plugin data (nothing to do when absent). */
export const unsetPluginDataAction: ActionPlugin = {
  name: 'unset-plugin-data',
  params: [{ name: 'path' }],
  supportsEarly: true,
  run: (context, args) => {
    const tokens = pointerTokens(args.path, true);
    if (removeAt(context.pluginData, tokens)) context.wrotePluginData(tokens);
  },
};
