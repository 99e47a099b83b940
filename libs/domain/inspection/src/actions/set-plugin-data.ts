import { cloneJson } from '../values';
import { pluginDataPath, pluginDataSet } from './plugin-data-helpers';
import type { ActionPlugin } from './types';

/** set-plugin-data(path, value): sets a value in the plugin data (`a.b`), creating dicts on the way. */
export const setPluginDataAction: ActionPlugin = {
  name: 'set-plugin-data',
  params: [{ name: 'path' }, { name: 'value' }],
  formatted: ['value'],
  supportsEarly: true,
  run: (context, args) => {
    const path = pluginDataPath(args.path);
    pluginDataSet(context.pluginData, path, cloneJson(args.value));
    context.wrotePluginData(path.parts);
  },
};
