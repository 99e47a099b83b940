import type { JsonPatchOperation } from '@rollout/contracts';
import { RuleError } from '../errors';
import { attributePath, toPointer } from '../paths';
import { cloneJson, deepEqual, isPlainObject, JsonObject, typeName } from '../values';
import type { ActionContext } from './types';

export function requireNode(context: ActionContext): JsonObject {
  if (!context.node) throw new RuleError('no node is available in this phase');
  return context.node;
}

export function findPort(context: ActionContext, portId: unknown): JsonObject {
  if (typeof portId !== 'string') throw new RuleError('port_id must be a MAC address or a uuid');
  const wanted = portId.toLowerCase();
  const port = context.ports.find(
    (p) =>
      p.uuid === portId || (typeof p.address === 'string' && p.address.toLowerCase() === wanted),
  );
  if (!port) throw new RuleError(`no port ${portId}`);
  return port;
}

const kind = (value: unknown) =>
  Array.isArray(value) ? 'list' : isPlainObject(value) ? 'dict' : 'scalar';

/**
 * As Ironic's set-attribute: missing dicts on the way are created, each by an explicit `add` so
 * the patch applies to the object as it was; a field keeps its type.
 */
export function setOperations(
  target: JsonObject,
  path: unknown,
  value: unknown,
  what: string,
): JsonPatchOperation[] {
  const parts = attributePath(path);
  const operations: JsonPatchOperation[] = [];
  let current: JsonObject = target;
  for (let i = 0; i < parts.length - 1; i++) {
    const child = Object.hasOwn(current, parts[i]) ? current[parts[i]] : undefined;
    if (child === undefined) {
      operations.push({ op: 'add', path: toPointer(parts.slice(0, i + 1)), value: {} });
      current = {};
    } else if (isPlainObject(child)) {
      current = child;
    } else {
      throw new RuleError(
        `${what} ${toPointer(parts.slice(0, i + 1))} is a ${typeName(child)}, not a dict`,
      );
    }
  }
  const last = parts[parts.length - 1];
  const existing = Object.hasOwn(current, last) ? current[last] : undefined;
  if (existing !== undefined && existing !== null && kind(existing) !== kind(value)) {
    throw new RuleError(
      `${what} ${toPointer(parts)} is a ${typeName(existing)}: it cannot be set to a ${typeName(value)}`,
    );
  }
  operations.push({ op: 'add', path: toPointer(parts), value: cloneJson(value) });
  return operations;
}

/** As Ironic's extend-attribute: a missing list starts empty. */
export function extendOperations(
  target: JsonObject,
  path: unknown,
  value: unknown,
  unique: unknown,
  what: string,
): JsonPatchOperation[] {
  const parts = attributePath(path);
  let current: unknown = target;
  for (const part of parts)
    current = isPlainObject(current) && Object.hasOwn(current, part) ? current[part] : undefined;
  if (current !== undefined && !Array.isArray(current)) {
    throw new RuleError(
      `cannot extend ${what} ${toPointer(parts)}: it is a ${typeName(current)}, not a list`,
    );
  }
  const list = [...((current as unknown[] | undefined) ?? [])];
  if (!(unique === true && list.some((item) => deepEqual(item, value))))
    list.push(cloneJson(value));
  return setOperations(target, path, list, what);
}

/** As Ironic's del-attribute: every part of the path must exist. */
export function deleteOperation(
  target: JsonObject,
  path: unknown,
  what: string,
): JsonPatchOperation {
  const parts = attributePath(path);
  let current: unknown = target;
  for (let i = 0; i < parts.length; i++) {
    if (!isPlainObject(current) || !Object.hasOwn(current, parts[i])) {
      throw new RuleError(`${what} has no attribute ${toPointer(parts.slice(0, i + 1))}`);
    }
    current = current[parts[i]];
  }
  return { op: 'remove', path: toPointer(parts) };
}
