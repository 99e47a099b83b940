import { RuleError } from '../errors';
import { getAt, parsePointer, setAt, removeAt } from '../json-pointer';
import { deepEqual, isPlainObject, JsonObject, typeName } from '../values';
import type { ActionContext } from './types';

export function requireNode(context: ActionContext): JsonObject {
  if (!context.node) throw new RuleError('no node is available in this phase');
  return context.node;
}

/** Ports are named by MAC address (any case) or uuid. */
export function findPort(context: ActionContext, portId: unknown): JsonObject {
  if (typeof portId !== 'string') throw new RuleError('port_id must be a MAC address or a uuid');
  const wanted = portId.toLowerCase();
  const port = context.ports.find(
    (p) => p.uuid === portId || (typeof p.address === 'string' && p.address.toLowerCase() === wanted),
  );
  if (!port) throw new RuleError(`no port ${portId}`);
  return port;
}

export function pointerTokens(path: unknown, relaxed = false): string[] {
  if (typeof path !== 'string') throw new RuleError('path must be a string');
  return parsePointer(path, relaxed);
}

/** The list at `tokens` with `value` appended (a missing value starts a new list). */
export function extended(target: unknown, tokens: string[], value: unknown, unique: unknown): unknown[] {
  const current = getAt(target, tokens);
  if (current !== undefined && current !== null && !Array.isArray(current)) {
    throw new RuleError(`/${tokens.join('/')} is a ${typeName(current)}, not a list`);
  }
  const list = [...((current as unknown[] | undefined) ?? [])];
  if (!(unique === true && list.some((item) => deepEqual(item, value)))) list.push(value);
  return list;
}

export { getAt, isPlainObject, removeAt, setAt };
