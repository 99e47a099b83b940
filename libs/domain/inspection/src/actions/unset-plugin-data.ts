import { PluginDataPath, attributePath, pluginDataPath } from '../paths';
import type { JsonObject } from '../values';
import { pluginDataUnset } from './plugin-data-helpers';
import type { ActionPlugin } from './types';

/**
 * Ironic splits on dots only, so `a/b` is the key "a/b"; when that key is absent it reads as
 * `a.b`, so the slash form users write for attributes is not silently a no-op.
 */
function unsetPath(pluginData: JsonObject, written: unknown): PluginDataPath {
  const path = pluginDataPath(written);
  const [only] = path.parts;
  if (path.pointer || path.parts.length !== 1 || !only.includes('/')) return path;
  if (Object.hasOwn(pluginData, only)) return path;
  return { parts: attributePath(only), pointer: false };
}

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
