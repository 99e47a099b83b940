import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  OK_STATUS,
  StatusError,
  type AdapterInfo,
  type CheckResult,
  type Clock,
  type CloseSessionResponse,
  type CreateSessionResponse,
  type HandleReportResponse,
  type QuotaResult,
  type ValidateResponse,
} from '@rollout/contracts';
import {
  chargeAfterEnd,
  grantAmount,
  overBudget,
  resourceHours,
  shortMessage,
  type LeaseTimes,
} from './accounting';
import { BudgetConfig, budgetOf, configKey, parseBudgetConfig } from './budget-config';
import { BudgetRepository, Hours } from './budget.repository';
import { BudgetMetrics } from './budget-metrics';
import { CLOCK } from '@rollout/platform/service-kit';
import { BUDGET_ADAPTER_CONFIG, type Config } from '../config';
import { LeaseMessage, REQUESTS, parseRequest } from './requests';

function times(lease: LeaseMessage): LeaseTimes {
  return {
    startDate: new Date(lease.startDate),
    endDate: new Date(lease.endDate),
    reservations: lease.reservations,
  };
}

/** Quotas and reports of one lease meet on its id (its name when a caller sends no id). */
export function leaseKey(lease: LeaseMessage): string {
  return lease.id ?? `name:${lease.name ?? ''}`;
}

/** Transport-free: a StatusError thrown here becomes the reply's status. */
@Injectable()
export class BudgetAdapter {
  private readonly logger = new Logger('BudgetAdapter');

  constructor(
    @Inject(BUDGET_ADAPTER_CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly repository: BudgetRepository,
    private readonly metrics: BudgetMetrics,
  ) {}

  info(): AdapterInfo {
    return {
      name: this.config.ADAPTER_NAME,
      description:
        'Per-project budgets of resource-hours: grants quota, refunds what ended leases did not use, and denies projects over budget.',
      templates: ['check', 'quota', 'report'],
      sessionBased: true,
    };
  }

  validate(body: unknown): ValidateResponse {
    const { adapterConfig } = parseRequest(REQUESTS.validate, body);
    this.parseConfig(adapterConfig);
    return { status: OK_STATUS };
  }

  async createSession(body: unknown): Promise<CreateSessionResponse> {
    const { adapterConfig } = parseRequest(REQUESTS.createSession, body);
    this.parseConfig(adapterConfig);
    const opened = await this.repository.openSession(
      configKey(adapterConfig),
      adapterConfig,
      this.clock.now(),
    );
    this.metrics.session(opened.refs === 1 ? 'created' : 'reused');
    this.logger.log(
      { sessionId: opened.sessionId, refs: opened.refs },
      opened.refs === 1 ? 'session created' : 'session reused',
    );
    return { sessionId: opened.sessionId, status: OK_STATUS };
  }

  async closeSession(body: unknown): Promise<CloseSessionResponse> {
    const { sessionId } = parseRequest(REQUESTS.closeSession, body);
    const closed = await this.repository.closeSession(sessionId, this.clock.now());
    if (!closed.found)
      throw new StatusError('NOT_FOUND', `Session ${sessionId} is unknown or already closed.`);
    this.metrics.session(closed.refs === 0 ? 'ended' : 'released');
    this.logger.log(
      { sessionId, refs: closed.refs },
      closed.refs === 0 ? 'session ended' : 'session released',
    );
    return { status: OK_STATUS };
  }

  async handleCheck(body: unknown): Promise<CheckResult> {
    const request = parseRequest(REQUESTS.handleCheck, body);
    const config = await this.resolve(request);
    const project = request.instance.context.projectId;
    const types = request.instance.lease.reservations.map((r) => r.resourceType);
    const spent = await this.repository.spent(project, [...new Set(types)]);
    const over = overBudget(config, project, types, (type) => spent[type] ?? 0);
    const validity = {
      validDuration: this.config.BUDGET_CHECK_VALID_DURATION_MS,
      validUseCount: this.config.BUDGET_CHECK_VALID_USE_COUNT,
    };
    if (!over) return { status: OK_STATUS, ...validity };
    return { status: new StatusError('PERMISSION_DENIED', over.message).toStatus(), ...validity };
  }

  async handleQuota(body: unknown): Promise<QuotaResult> {
    const request = parseRequest(REQUESTS.handleQuota, body);
    const config = await this.resolve(request);
    const project = request.instance.context.projectId;
    const { quotas, dedupId } = request.quotaRequest;
    const types = Object.keys(quotas).sort();
    const validDuration = this.config.BUDGET_QUOTA_VALID_DURATION_MS;
    const { result, replayed } = await this.repository.grantOnce(
      project,
      leaseKey(request.instance.lease),
      dedupId,
      types,
      this.clock.now(),
      (spent) => {
        const granted: Hours = {};
        const short: { resourceType: string; left: number; budget: number }[] = [];
        for (const type of types) {
          const budget = budgetOf(config, project, type);
          granted[type] = grantAmount(quotas[type], budget, spent[type]);
          if (budget !== undefined && granted[type] < quotas[type].amount)
            short.push({ resourceType: type, left: Math.max(0, budget - spent[type]), budget });
        }
        const result: QuotaResult = {
          status: { ...OK_STATUS, message: shortMessage(project, short) },
          quotas: Object.fromEntries(
            types.map((type) => [type, { validDuration, grantedAmount: granted[type] }]),
          ),
        };
        return { result, granted };
      },
    );
    if (!replayed)
      for (const type of types) this.metrics.granted(type, result.quotas[type]?.grantedAmount ?? 0);
    return result;
  }

  async handleReport(body: unknown): Promise<HandleReportResponse> {
    const request = parseRequest(REQUESTS.handleReport, body);
    await this.resolve(request);
    for (const instance of request.instances) {
      const lease = times(instance.lease);
      const project = instance.context.projectId;
      const delta = await this.repository.recharge(
        project,
        leaseKey(instance.lease),
        this.clock.now(),
        (charged) => {
          if (instance.kind === 'created' || !Object.keys(charged).length) return {};
          if (instance.kind === 'ended') {
            const used = resourceHours(lease, new Date(instance.at));
            return Object.fromEntries(
              Object.entries(charged).map(([type, hours]) => [
                type,
                chargeAfterEnd(hours, used[type] ?? 0),
              ]),
            );
          }
          const now = resourceHours(lease);
          return Object.fromEntries(
            [...new Set([...Object.keys(charged), ...Object.keys(now)])].map((type) => [
              type,
              now[type] ?? 0,
            ]),
          );
        },
      );
      this.metrics.report(instance.kind, delta);
    }
    return { status: OK_STATUS };
  }

  private parseConfig(raw: unknown): BudgetConfig {
    const parsed = parseBudgetConfig(raw);
    if (parsed.ok) return parsed.config;
    const text = parsed.violations.map((v) => `${v.field} ${v.description}`).join('; ');
    throw StatusError.invalidArgument(`Invalid budget config: ${text}.`, parsed.violations);
  }

  private async resolve(request: {
    sessionId?: string;
    adapterConfig?: Record<string, unknown>;
  }): Promise<BudgetConfig> {
    if (request.sessionId !== undefined) {
      const config = await this.repository.sessionConfig(request.sessionId);
      if (config === undefined) {
        throw new StatusError(
          'FAILED_PRECONDITION',
          `Session ${request.sessionId} is unknown or closed: call CreateSession first.`,
        );
      }
      return this.parseConfig(config);
    }
    if (request.adapterConfig !== undefined) return this.parseConfig(request.adapterConfig);
    throw new StatusError(
      'FAILED_PRECONDITION',
      'The request names no session (sessionId) and carries no adapterConfig: call CreateSession first.',
    );
  }
}
