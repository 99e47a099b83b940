import { canonicalJson } from '@rollout/contracts';
import { AdapterInstance, CheckResult } from './wire';

/**
 * The request id (new on every call) is left out, and so is `apiId`: Blazar gives a refused lease a
 * new one when it asks again. The lease's `id` stays in: an adapter may decide on the lease itself.
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
  now: () => number;
}

/** Denials are cached like allows; failures are never stored. */
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

  /** With several results, the first status is kept and each limit is the minimum; a 0 limit stores nothing. */
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
