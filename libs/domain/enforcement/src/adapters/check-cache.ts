import { canonicalJson } from '@rollout/contracts';
import { AdapterInstance, CheckResult } from './wire';

/**
 * What identifies a check for the cache: the handler, the hook and the instance without its
 * request id (which differs on every call). The lease's `id` stays in the key: a result is
 * reused only for the lease it was given about (Blazar asking again about one lease), never for
 * another lease of the same shape, since an adapter may decide on the lease itself. `apiId` is
 * left out: it is another name of the same lease, and a Blazar lease refused once gets a new one
 * when Blazar asks again.
 */
export function checkCacheKey(handler: string, instance: AdapterInstance): string {
  const { requestId: _requestId, ...context } = instance.context;
  const withoutApiId = (lease: AdapterInstance['lease'] | undefined) =>
    lease ? { ...lease, apiId: undefined } : undefined;
  return `${handler}\u0000${canonicalJson({ ...instance, context, lease: withoutApiId(instance.lease), currentLease: withoutApiId(instance.currentLease) })}`;
}

interface Entry {
  result: CheckResult;
  expiresAt: number;
  usesLeft: number;
}

export interface CheckCacheOptions {
  /** Entries kept at most; the oldest goes first. */
  maxEntries?: number;
  /** Milliseconds since an epoch (the injected clock). */
  now: () => number;
}

/**
 * Check results by (handler, instance), reused while both limits hold: until `validDuration`
 * ms after the answer and for `validUseCount` more checks (the smallest of each across the
 * results stored together). Denials are cached like allows; failures are never stored.
 */
export class CheckCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: CheckCacheOptions) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached result, consuming one use; undefined when absent, expired or used up. */
  take(key: string): CheckResult | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now() || entry.usesLeft <= 0) {
      this.entries.delete(key);
      return undefined;
    }
    entry.usesLeft -= 1;
    if (entry.usesLeft === 0) this.entries.delete(key);
    return entry.result;
  }

  /**
   * Stores a result; with several (e.g. the answers of one check from more than one call),
   * the first status is kept and the validity is the minimum of each limit across all of them.
   * Nothing is stored when either limit is 0 or not a positive number.
   */
  put(key: string, results: readonly CheckResult[]): void {
    if (!results.length) return;
    const duration = Math.min(...results.map((r) => finiteOrZero(r.validDuration)));
    const uses = Math.min(...results.map((r) => Math.floor(finiteOrZero(r.validUseCount))));
    if (duration <= 0 || uses <= 0) {
      this.entries.delete(key);
      return;
    }
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { result: results[0], expiresAt: this.now() + duration, usesLeft: uses });
  }

  clear(): void {
    this.entries.clear();
  }
}

function finiteOrZero(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
}
