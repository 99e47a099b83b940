import { cloneJson } from '../values';
import { pluginDataPath, pluginDataSet } from './plugin-data-helpers';
import type { ActionPlugin } from './types';

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
