import { Clock, canonicalJson } from '@rollout/contracts';
import { createHash } from 'node:crypto';
import { EnforcementContext, EnforcementFilter, FilterResult, LeaseRequest } from '../model';
import { storableText } from '../time';
import { CheckCache, checkCacheKey } from './check-cache';
import {
  endedAt,
  grantOutcome,
  quotaAmounts,
  quotaRequest,
  toAdapterContext,
  toAdapterLease,
} from './quota';
import {
  AdapterCalls,
  AdapterInstance,
  AdapterStatus,
  AdapterTemplate,
  ReportRecord,
  isFailureStatus,
  isOk,
} from './wire';

export interface AdapterFilterSettings {
  name: string;
  adapter: string;
  templates: readonly AdapterTemplate[];
}

export interface AdapterFilterObserver {
  onCacheLookup(handler: string, hit: boolean): void;
}

/** The adapter could not decide (a failure status, an unusable answer): the failure policy applies. */
export class AdapterFailureError extends Error {
  override readonly name = 'AdapterFailureError';
}

const leaseIdOf = (context: EnforcementContext): string =>
  context.adapterLeaseId ?? `request:${context.requestId}`;

const DEFAULT_DENIAL = (adapter: string) => `Adapter ${adapter} denied the request.`;

function denialOf(adapter: string, status: AdapterStatus): string {
  const text = typeof status.message === 'string' ? status.message.trim() : '';
  return text ? storableText(text) : DEFAULT_DENIAL(adapter);
}

/**
 * Mixer's model: HandleCheck (through the check cache), then HandleQuota for the resource-hours a
 * lease adds; HandleReport once the ledger committed, or to hand quota back when a create or
 * update this filter allowed is not carried out. Transport failures and failure statuses are
 * thrown (the chain's failure policy applies); other non-OK statuses are denials.
 */
export class AdapterFilter implements EnforcementFilter {
  readonly name: string;
  private readonly reports: boolean;

  constructor(
    private readonly settings: AdapterFilterSettings,
    private readonly calls: AdapterCalls,
    private readonly clock: Clock,
    private readonly cache?: CheckCache,
    private readonly observer?: AdapterFilterObserver,
  ) {
    this.name = settings.name;
    this.reports = settings.templates.includes('report') || settings.templates.includes('quota');
  }

  private has(template: AdapterTemplate): boolean {
    return this.settings.templates.includes(template);
  }

  async checkCreate(context: EnforcementContext, lease: LeaseRequest): Promise<FilterResult> {
    return this.decide(context, lease, undefined);
  }

  async checkUpdate(
    context: EnforcementContext,
    current: LeaseRequest,
    lease: LeaseRequest,
  ): Promise<FilterResult> {
    return this.decide(context, lease, current);
  }

  async onEnd(context: EnforcementContext, lease: LeaseRequest): Promise<void> {
    await this.report(context, {
      kind: 'ended',
      lease,
      at: endedAt(lease, context.endedAt ? new Date(context.endedAt) : this.clock.now()),
    });
  }

  async onCreated(context: EnforcementContext, lease: LeaseRequest): Promise<void> {
    await this.report(context, { kind: 'created', lease, at: this.clock.now() });
  }

  async onUpdated(
    context: EnforcementContext,
    _before: LeaseRequest,
    after: LeaseRequest,
  ): Promise<void> {
    await this.report(context, { kind: 'updated', lease: after, at: this.clock.now() });
  }

  async onAborted(
    context: EnforcementContext,
    lease: LeaseRequest,
    current?: LeaseRequest,
  ): Promise<void> {
    if (!this.has('quota')) return;
    if (current)
      await this.report(context, { kind: 'updated', lease: current, at: this.clock.now() });
    else await this.report(context, { kind: 'ended', lease, at: lease.startDate });
  }

  private async decide(
    context: EnforcementContext,
    lease: LeaseRequest,
    current: LeaseRequest | undefined,
  ): Promise<FilterResult> {
    const hook = current ? 'update' : 'create';
    if (this.has('check')) {
      const id = leaseIdOf(context);
      const instance: AdapterInstance = {
        hook,
        context: toAdapterContext(context),
        lease: toAdapterLease(lease, id, context.apiLeaseId),
      };
      if (current) instance.currentLease = toAdapterLease(current, id, context.apiLeaseId);
      const status = await this.check(instance);
      if (!isOk(status)) return { message: denialOf(this.settings.adapter, status) };
    }
    if (this.has('quota')) {
      const amounts = quotaAmounts(lease, current);
      if (Object.keys(amounts).length) return this.quota(context, hook, lease, current, amounts);
    }
    return undefined;
  }

  private async check(instance: AdapterInstance): Promise<AdapterStatus> {
    const key = this.cache ? checkCacheKey(this.name, instance) : '';
    const cached = this.cache?.take(key);
    if (this.cache) this.observe(cached !== undefined);
    if (cached) return cached.status;
    const result = await this.calls.check(this.name, instance);
    if (!result || typeof result !== 'object')
      throw new AdapterFailureError(
        `Adapter ${this.settings.adapter} answered HandleCheck with no result.`,
      );
    if (!isOk(result.status) && isFailureStatus(result.status)) {
      throw new AdapterFailureError(
        `Adapter ${this.settings.adapter} failed HandleCheck: ${result.status?.status ?? 'no status'} ${result.status?.message ?? ''}`.trim(),
      );
    }
    this.cache?.put(key, [result]);
    return result.status;
  }

  private async quota(
    context: EnforcementContext,
    hook: 'create' | 'update',
    lease: LeaseRequest,
    current: LeaseRequest | undefined,
    amounts: Record<string, number>,
  ): Promise<FilterResult> {
    const leaseId = leaseIdOf(context);
    const instance: AdapterInstance = {
      hook,
      context: toAdapterContext(context),
      lease: toAdapterLease(lease, leaseId, context.apiLeaseId),
    };
    if (current) instance.currentLease = toAdapterLease(current, leaseId, context.apiLeaseId);
    const request = quotaRequest(amounts, this.dedupId(context, instance));
    let result;
    try {
      result = await this.calls.quota(this.name, instance, request);
    } catch (error) {
      // The adapter may have granted before the answer was lost: the dedup id makes a late grant and this return meet.
      void this.onAborted(context, lease, current).catch(() => undefined);
      throw error;
    }
    if (!result || typeof result !== 'object')
      throw new AdapterFailureError(
        `Adapter ${this.settings.adapter} answered HandleQuota with no result.`,
      );
    if (result.status && !isOk(result.status)) {
      if (isFailureStatus(result.status)) {
        throw new AdapterFailureError(
          `Adapter ${this.settings.adapter} failed HandleQuota: ${result.status.status} ${result.status.message ?? ''}`.trim(),
        );
      }
      return { message: denialOf(this.settings.adapter, result.status) };
    }
    const outcome = grantOutcome(this.settings.adapter, request, result);
    if (outcome.denial) {
      // Some types may have been granted: they return now, as the lease will not hold them.
      if (Object.keys(outcome.granted).length)
        await this.onAborted(context, lease, current).catch(() => undefined);
      return { message: outcome.denial };
    }
    return undefined;
  }

  /** A retried request (a re-sent Blazar check-create) gets the same id, so it is granted once. */
  private dedupId(context: EnforcementContext, instance: AdapterInstance): string {
    const { requestId: _requestId, userId: _userId, ...where } = instance.context;
    const subject = leaseIdOf(context);
    const digest = createHash('sha256')
      .update(
        canonicalJson({
          handler: this.name,
          hook: instance.hook,
          where,
          lease: instance.lease,
          current: instance.currentLease,
        }),
      )
      .digest('base64url')
      .slice(0, 22);
    return `${subject}:${digest}`;
  }

  private async report(
    context: EnforcementContext,
    what: { kind: ReportRecord['kind']; lease: LeaseRequest; at: Date },
  ): Promise<void> {
    if (!this.reports) return;
    const record: ReportRecord = {
      kind: what.kind,
      context: toAdapterContext(context),
      lease: toAdapterLease(what.lease, leaseIdOf(context), context.apiLeaseId),
      at: what.at.toISOString(),
    };
    const status = await this.calls.report(this.name, [record]);
    if (!isOk(status))
      throw new AdapterFailureError(
        `Adapter ${this.settings.adapter} refused HandleReport: ${status?.status ?? 'no status'} ${status?.message ?? ''}`.trim(),
      );
  }

  private observe(hit: boolean): void {
    try {
      this.observer?.onCacheLookup(this.name, hit);
    } catch {
      // Observability never changes a decision.
    }
  }
}
