import { canonicalJson, isAdapterName } from '@rollout/contracts';
import { ADAPTER_TEMPLATES, AdapterTemplate } from './wire';
import { FailurePolicy, FilterMode } from '../model';

/** Any entry of `filters` with an `adapter` key (example in docs/enforcement.md). */
export interface AdapterFilterConfig {
  name: string;
  adapter: string;
  params: Record<string, unknown>;
  templates: AdapterTemplate[];
  failurePolicy: FailurePolicy;
  timeoutMs: number;
  mode: FilterMode;
}

export const ADAPTER_FILTER_SETTINGS = [
  'adapter',
  'params',
  'templates',
  'failure_policy',
  'timeout_ms',
  'mode',
] as const;
export const DEFAULT_ADAPTER_TIMEOUT_MS = 1000;
export const MAX_ADAPTER_TIMEOUT_MS = 60_000;
/** A handler name also names metrics and appears in denials: a plain token. */
export const HANDLER_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;

type Fail = (path: string, problem: string) => never;

export function parseAdapterFilter(
  name: string,
  raw: Record<string, unknown>,
  path: string,
  fail: Fail,
): AdapterFilterConfig {
  for (const key of Object.keys(raw)) {
    if (!(ADAPTER_FILTER_SETTINGS as readonly string[]).includes(key))
      fail(
        `${path}.${key}`,
        `unknown setting (expected one of: ${ADAPTER_FILTER_SETTINGS.join(', ')})`,
      );
  }
  if (!HANDLER_NAME.test(name))
    fail(
      path,
      'an adapter filter name must start with a letter and hold only letters, digits, _ and - (at most 63)',
    );
  const adapter = raw['adapter'];
  if (typeof adapter !== 'string' || !isAdapterName(adapter)) {
    fail(
      `${path}.adapter`,
      `must be an adapter name (RFC 1035 label such as acme-budget), got ${JSON.stringify(adapter)}`,
    );
  }
  const params = raw['params'] ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    fail(`${path}.params`, "must be a mapping (the adapter's own settings)");
  const templates = raw['templates'] ?? ['check'];
  if (!Array.isArray(templates) || templates.length === 0)
    fail(`${path}.templates`, `must be a non-empty list of: ${ADAPTER_TEMPLATES.join(', ')}`);
  templates.forEach((t: unknown, i: number) => {
    if (!ADAPTER_TEMPLATES.includes(t as AdapterTemplate))
      fail(
        `${path}.templates[${i}]`,
        `unknown template ${JSON.stringify(t)} (known: ${ADAPTER_TEMPLATES.join(', ')})`,
      );
    if (templates.indexOf(t) !== i)
      fail(`${path}.templates[${i}]`, `template "${String(t)}" is listed twice`);
  });
  const policy = raw['failure_policy'] ?? 'closed';
  if (policy !== 'open' && policy !== 'closed')
    fail(`${path}.failure_policy`, `must be "open" or "closed", got ${JSON.stringify(policy)}`);
  const timeout = raw['timeout_ms'] ?? DEFAULT_ADAPTER_TIMEOUT_MS;
  if (
    typeof timeout !== 'number' ||
    !Number.isInteger(timeout) ||
    timeout < 1 ||
    timeout > MAX_ADAPTER_TIMEOUT_MS
  ) {
    fail(
      `${path}.timeout_ms`,
      `must be an integer from 1 to ${MAX_ADAPTER_TIMEOUT_MS}, got ${JSON.stringify(timeout)}`,
    );
  }
  const mode = raw['mode'] ?? 'enforce';
  if (mode !== 'enforce' && mode !== 'dryrun')
    fail(`${path}.mode`, `must be "enforce" or "dryrun", got ${JSON.stringify(mode)}`);
  return {
    name,
    adapter,
    params: params as Record<string, unknown>,
    templates: templates as AdapterTemplate[],
    failurePolicy: policy,
    timeoutMs: timeout,
    mode,
  };
}

/** Whether two configs of a handler are the same (same session); any change means a new one. */
export function sameAdapterFilter(a: AdapterFilterConfig, b: AdapterFilterConfig): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
