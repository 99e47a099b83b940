import { PluginDataPath, attributePath, pluginDataPath } from '../paths';
import type { JsonObject } from '../values';
import { pluginDataUnset } from './plugin-data-helpers';
import type { ActionPlugin } from './types';

/**
 * The path to unset. Ironic splits plugin data paths on dots only, so `a/b` is the key "a/b";
 * when no such key exists, `a/b` is read as the nested key `b` inside `a` (split on slashes as
 * node and port paths are), so that the slash form users write for attributes is not silently
 * a no-op. Read so, it is the dotted path `a.b` in every way: a dict it empties goes too.
 */
function unsetPath(pluginData: JsonObject, written: unknown): PluginDataPath {
  const path = pluginDataPath(written);
  const [only] = path.parts;
  if (path.pointer || path.parts.length !== 1 || !only.includes('/')) return path;
  if (Object.hasOwn(pluginData, only)) return path;
  return { parts: attributePath(only), pointer: false };
}

/** unset-plugin-data(path): removes a value (and its dict when it was the only key); nothing to do when absent. */
export const unsetPluginDataAction: ActionPlugin = {
  name: 'unset-plugin-data',
  params: [{ name: 'path' }],
  formatted: [],
  supportsEarly: true,
  run: (context, args) => {
    const path = unsetPath(context.pluginData, args.path);
    if (pluginDataUnset(context.pluginData, path)) context.wrotePluginData(path.parts);
  },
};
