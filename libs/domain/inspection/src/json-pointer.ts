import type { JsonPatchOperation } from '@rollout/contracts';
import { RuleError } from './errors';
import { deepEqual, cloneJson, isPlainObject } from './values';

const pointers = new Map<string, readonly string[]>();

/** `relaxed` also accepts `a/b`. The tokens are shared across events: never change them. */
export function parsePointer(pointer: string, relaxed = false): string[] {
  if (typeof pointer !== 'string') throw new RuleError('path must be a string');
  if (!pointer.startsWith('/') && (!relaxed || pointer === ''))
    throw new RuleError(`path ${JSON.stringify(pointer)} must start with "/"`);
  let tokens = pointers.get(pointer);
  if (!tokens) {
    const text = pointer.startsWith('/') ? pointer.slice(1) : pointer;
    tokens = Object.freeze(text.split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~')));
    if (tokens.includes('__proto__'))
      throw new RuleError(`path ${JSON.stringify(pointer)} is not allowed`);
    if (pointer.length <= 1024) {
      if (pointers.size > 10_000) pointers.clear();
      pointers.set(pointer, tokens);
    }
  }
  return tokens as string[];
}

function childOf(container: unknown, token: string): unknown {
  if (Array.isArray(container)) {
    if (!/^\d+$/.test(token)) return undefined;
    return container[Number(token)];
  }
  if (isPlainObject(container) && Object.hasOwn(container, token)) return container[token];
  return undefined;
}

export function getAt(root: unknown, tokens: string[]): unknown {
  let current = root;
  for (const token of tokens) {
    current = childOf(current, token);
    if (current === undefined) return undefined;
  }
  return current;
}

export function setAt(
  root: Record<string, unknown>,
  tokens: string[],
  value: unknown,
  createParents = true,
): void {
  if (tokens.length === 0) throw new RuleError('cannot replace the whole document');
  let current: unknown = root;
  for (const token of tokens.slice(0, -1)) {
    let next = childOf(current, token);
    if (next === undefined) {
      if (!createParents || !isPlainObject(current))
        throw new RuleError(`path /${tokens.join('/')} does not exist`);
      next = {};
      current[token] = next;
    }
    current = next;
  }
  const last = tokens[tokens.length - 1];
  if (Array.isArray(current)) {
    if (last === '-') current.push(value);
    else if (/^\d+$/.test(last) && Number(last) <= current.length)
      current.splice(Number(last), 0, value);
    else throw new RuleError(`path /${tokens.join('/')}: bad list index`);
  } else if (isPlainObject(current)) {
    current[last] = value;
  } else {
    throw new RuleError(
      `path /${tokens.join('/')} goes through a value that is not a dict or list`,
    );
  }
}

export function removeAt(root: unknown, tokens: string[]): boolean {
  const parent = getAt(root, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent) && /^\d+$/.test(last) && Number(last) < parent.length) {
    parent.splice(Number(last), 1);
    return true;
  }
  if (isPlainObject(parent) && Object.hasOwn(parent, last)) {
    delete parent[last];
    return true;
  }
  return false;
}

/** Any problem is a RuleError. */
export function applyJsonPatch(
  document: Record<string, unknown>,
  patch: unknown,
): Record<string, unknown> {
  if (!Array.isArray(patch)) throw new RuleError('a JSON patch is a list of operations');
  const result = cloneJson(document);
  patch.forEach((raw, index) => {
    if (!isPlainObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw new RuleError(`patch operation ${index} needs "op" and "path"`);
    }
    const op = raw as unknown as JsonPatchOperation;
    const tokens = parsePointer(op.path);
    switch (op.op) {
      case 'add':
        if (!('value' in raw)) throw new RuleError(`patch operation ${index} needs a value`);
        setAt(result, tokens, cloneJson(op.value), false);
        break;
      case 'replace':
        if (!('value' in raw)) throw new RuleError(`patch operation ${index} needs a value`);
        if (getAt(result, tokens) === undefined)
          throw new RuleError(`path ${op.path} does not exist`);
        removeAt(result, tokens);
        setAt(result, tokens, cloneJson(op.value), false);
        break;
      case 'remove':
        if (!removeAt(result, tokens)) throw new RuleError(`path ${op.path} does not exist`);
        break;
      case 'move':
      case 'copy': {
        if (typeof op.from !== 'string')
          throw new RuleError(`patch operation ${index} needs "from"`);
        const from = parsePointer(op.from);
        const value = getAt(result, from);
        if (value === undefined) throw new RuleError(`path ${op.from} does not exist`);
        if (op.op === 'move') removeAt(result, from);
        setAt(result, tokens, cloneJson(value), false);
        break;
      }
      case 'test':
        if (!deepEqual(getAt(result, tokens), op.value))
          throw new RuleError(`test of ${op.path} failed`);
        break;
      default:
        throw new RuleError(
          `unknown patch operation ${JSON.stringify((raw as { op: unknown }).op)}`,
        );
    }
  });
  return result;
}
