import { RuleError } from '../errors';
import { toPointer } from '../paths';
import { cloneJson, deepEqual, isPlainObject, typeName } from '../values';
import { pluginDataGet, pluginDataPath, pluginDataSet } from './plugin-data-helpers';
import type { ActionPlugin } from './types';

/** As in Ironic, a missing or empty value (null, "", 0, {}) starts a new list; another non-list is an error. */
export const extendPluginDataAction: ActionPlugin = {
  name: 'extend-plugin-data',
  params: [
    { name: 'path' },
    { name: 'value' },
    { name: 'unique', keywordOnly: true, default: false },
  ],
  formatted: ['value'],
  supportsEarly: true,
  run: (context, args) => {
    const path = pluginDataPath(args.path);
    const current = pluginDataGet(context.pluginData, path);
    // A JSON Pointer keeps this project's earlier reading: only a missing value or null starts a list.
    const empty = path.pointer
      ? current === undefined || current === null
      : current === undefined ||
        current === null ||
        current === '' ||
        current === 0 ||
        current === false ||
        (isPlainObject(current) && Object.keys(current).length === 0);
    if (!empty && !Array.isArray(current))
      throw new RuleError(
        `cannot extend plugin data ${toPointer(path.parts)}: it is a ${typeName(current)}, not a list`,
      );
    const list = Array.isArray(current) ? current : [];
    const value = cloneJson(args.value);
    if (!(args.unique === true && list.some((item) => deepEqual(item, value)))) list.push(value);
    pluginDataSet(context.pluginData, path, list);
    context.wrotePluginData(path.parts);
  },
};
