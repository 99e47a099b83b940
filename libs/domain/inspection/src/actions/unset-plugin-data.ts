import { pluginDataPath, pluginDataUnset } from './plugin-data-helpers';
import type { ActionPlugin } from './types';

/** unset-plugin-data(path): removes a value (and its dict when it was the only key); nothing to do when absent. */
export const unsetPluginDataAction: ActionPlugin = {
  name: 'unset-plugin-data',
  params: [{ name: 'path' }],
  formatted: [],
  supportsEarly: true,
  run: (context, args) => {
    const path = pluginDataPath(args.path);
    if (pluginDataUnset(context.pluginData, path)) context.wrotePluginData(path.parts);
  },
};
