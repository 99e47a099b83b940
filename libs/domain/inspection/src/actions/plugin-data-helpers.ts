import { RuleError } from '../errors';
import { getAt, removeAt, setAt } from '../json-pointer';
import { PluginDataPath, pluginDataPath, toPointer } from '../paths';
import { isPlainObject, JsonObject, setOwn, typeName } from '../values';

export function pluginDataGet(root: JsonObject, path: PluginDataPath): unknown {
  return path.pointer ? getAt(root, path.parts) : dottedGet(root, path.parts);
}

/** A JSON Pointer may also insert into lists. */
export function pluginDataSet(root: JsonObject, path: PluginDataPath, value: unknown): void {
  if (path.pointer) setAt(root, path.parts, value);
  else dottedSet(root, path.parts, value);
}

export function pluginDataUnset(root: JsonObject, path: PluginDataPath): boolean {
  return path.pointer ? removeAt(root, path.parts) : dottedUnset(root, path.parts);
}

function dottedGet(root: JsonObject, parts: readonly string[]): unknown {
  let current: unknown = root;
  for (const part of parts) {
    if (!isPlainObject(current) || !Object.hasOwn(current, part)) return undefined;
    current = current[part];
  }
  return current;
}

/** As Ironic's `update_nested_dict`: going through anything that is not a dict is an error. */
function dottedSet(root: JsonObject, parts: readonly string[], value: unknown): void {
  let current = root;
  for (let i = 0; i < parts.length - 1; i++) {
    let child = Object.hasOwn(current, parts[i]) ? current[parts[i]] : undefined;
    if (child === undefined) setOwn(current, parts[i], (child = {}));
    if (!isPlainObject(child))
      throw new RuleError(
        `plugin data ${toPointer(parts.slice(0, i + 1))} is a ${typeName(child)}, not a dict`,
      );
    current = child;
  }
  setOwn(current, parts[parts.length - 1], value);
}

/** As Ironic: a dict left empty goes too (one level only). */
function dottedUnset(root: JsonObject, parts: readonly string[]): boolean {
  const parent = dottedGet(root, parts.slice(0, -1));
  const last = parts[parts.length - 1];
  if (!isPlainObject(parent) || !Object.hasOwn(parent, last)) return false;
  if (parts.length > 1 && Object.keys(parent).length === 1) {
    delete (dottedGet(root, parts.slice(0, -2)) as JsonObject)[parts[parts.length - 2]];
  } else {
    delete parent[last];
  }
  return true;
}

export { pluginDataPath };
