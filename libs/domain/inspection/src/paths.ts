import { RuleError } from './errors';

/** Parsed paths are shared across events: never change the returned lists. */
const attributePaths = new Map<string, readonly string[]>();
const pluginDataPaths = new Map<string, readonly string[]>();

function cached(
  cache: Map<string, readonly string[]>,
  path: string,
  parse: () => string[],
): string[] {
  let parts = cache.get(path);
  if (!parts) {
    parts = Object.freeze(parse());
    if (parts.includes('__proto__'))
      throw new RuleError(`path ${JSON.stringify(path)} is not allowed`);
    if (path.length <= 1024) {
      if (cache.size > 10_000) cache.clear();
      cache.set(path, parts);
    }
  }
  return parts as string[];
}

/** Ironic's `normalize_path`: with a `/` anywhere, split on slashes; otherwise on dots. */
export function attributePath(path: unknown): string[] {
  if (typeof path !== 'string') throw new RuleError('path must be a string');
  return cached(attributePaths, path, () =>
    path.includes('/') ? path.replace(/^\/+|\/+$/g, '').split('/') : path.split('.'),
  );
}

export interface PluginDataPath {
  parts: string[];
  pointer: boolean;
}

/**
 * Split on dots, as Ironic. A leading `/` is a JSON Pointer, as this project read every plugin
 * data path before; Ironic would make it one key named `/a/b`, which no rule wants.
 */
export function pluginDataPath(path: unknown): PluginDataPath {
  if (typeof path !== 'string') throw new RuleError('path must be a string');
  if (path === '') throw new RuleError('path must not be empty');
  const pointer = path.startsWith('/');
  const parts = cached(pluginDataPaths, path, () =>
    pointer
      ? path
          .slice(1)
          .split('/')
          .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
      : path.split('.'),
  );
  return { parts, pointer };
}

export function toPointer(parts: readonly string[]): string {
  return parts.map((part) => `/${part.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
