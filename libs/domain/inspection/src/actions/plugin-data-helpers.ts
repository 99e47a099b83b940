import { RuleError } from '../errors';
import { getAt, removeAt, setAt } from '../json-pointer';
import { PluginDataPath, pluginDataPath, toPointer } from '../paths';
import { isPlainObject, JsonObject, setOwn, typeName } from '../values';

/** The value at a path; undefined when it is not there. */
export function pluginDataGet(root: JsonObject, path: PluginDataPath): unknown {
  return path.pointer ? getAt(root, path.parts) : dottedGet(root, path.parts);
}

/** Sets a value, creating dicts on the way (a JSON Pointer may also insert into lists). */
export function pluginDataSet(root: JsonObject, path: PluginDataPath, value: unknown): void {
  if (path.pointer) setAt(root, path.parts, value);
  else dottedSet(root, path.parts, value);
}

/** Removes a value; returns whether there was one. */
export function pluginDataUnset(root: JsonObject, path: PluginDataPath): boolean {
  return path.pointer ? removeAt(root, path.parts) : dottedUnset(root, path.parts);
}

/** The value at `parts`, or undefined when any part is missing or crosses something that is not a dict. */
function dottedGet(root: JsonObject, parts: readonly string[]): unknown {
  let current: unknown = root;
  for (const part of parts) {
    if (!isPlainObject(current) || !Object.hasOwn(current, part)) return undefined;
    current = current[part];
  }
  return current;
}

/**
 * Sets a plugin data value as Ironic's `update_nested_dict`: dicts are created on the way,
 * and going through anything that is not a dict (a list, a string) is an error.
 */
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

/**
 * Removes a plugin data value as Ironic's unset-plugin-data: when it was the only key of its
 * dict, that dict goes too (one level, as in Ironic). Returns whether anything was there.
 */
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
