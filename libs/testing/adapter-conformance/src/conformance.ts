/// <reference types="jest" />
// The kit registers Jest tests: it needs Jest's globals even where the build leaves their types out.
import {
  ADAPTER_NAME,
  ADAPTER_TEMPLATES,
  type AdapterInfo,
  type AdapterTemplate,
  type CheckResult,
  type CloseSessionResponse,
  type CreateSessionResponse,
  type HandleReportResponse,
  type LeaseInstance,
  type QuotaResult,
  type ValidateResponse,
} from '@rollout/contracts';
import { randomBytes } from 'node:crypto';
import { AdapterTestClient, statusProblem } from './adapter-client';
import type { AdapterConformanceOptions } from './options';

/** The same config, written differently. */
function reordered(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).reverse());
}

/**
 * Call it at the top level of a Jest test file, with the adapter already running:
 *
 *   describeAdapterConformance({ connection: () => nc, adapter: 'acme-budget', validConfig, invalidConfig, timeoutMs: 2000 });
 */
export function describeAdapterConformance(options: AdapterConformanceOptions): void {
  const sessionBased = options.sessionBased ?? true;
  const budget = options.quota?.budget;
  if (budget !== undefined && !(Number.isInteger(budget) && budget >= 2 && budget % 2 === 0)) {
    throw new Error(
      `describeAdapterConformance: quota.budget must be an even integer ≥ 2, got ${budget}`,
    );
  }
  const run = randomBytes(4).toString('hex');
  const projectId = `conformance-${run}`;
  let client: AdapterTestClient;

  const instance = (leaseId: string, hours = 1): LeaseInstance => ({
    hook: 'create',
    context: {
      userId: 'conformance',
      projectId,
      regionName: 'RegionOne',
      requestId: `req-${randomBytes(4).toString('hex')}`,
    },
    lease: {
      id: leaseId,
      name: leaseId,
      startDate: '2030-01-01T00:00:00Z',
      endDate: new Date(Date.parse('2030-01-01T00:00:00Z') + hours * 3_600_000).toISOString(),
      reservations: [{ resourceType: options.quota?.name ?? 'physical:host', min: 1, max: 1 }],
    },
  });
  const call = async <T>(
    method: Parameters<AdapterTestClient['call']>[0],
    body: unknown,
  ): Promise<T> => {
    const reply = await client.call<T>(method, body);
    const status = (reply.body as { status?: unknown }).status;
    if (method !== 'info') expect(statusProblem(status)).toBeUndefined();
    return reply.body;
  };
  const createSession = (config = options.validConfig) =>
    call<CreateSessionResponse>('createSession', { adapterConfig: config, inferredTypes: {} });
  const closeSession = (sessionId: string) =>
    call<CloseSessionResponse>('closeSession', { sessionId });
  const has = (template: AdapterTemplate) => options.templates.includes(template);
  const handles = (target: { sessionId: string } | { adapterConfig: Record<string, unknown> }) => {
    const out: Promise<{ status: { status: string } }>[] = [];
    if (has('check'))
      out.push(call('handleCheck', { ...target, instance: instance(`check-${run}`) }));
    if (has('quota')) {
      const dedupId = `probe-${run}-${randomBytes(4).toString('hex')}`;
      out.push(
        call('handleQuota', {
          ...target,
          instance: instance(`probe-${run}`),
          quotaRequest: { quotas: {}, dedupId },
        }),
      );
    }
    if (has('report')) out.push(call('handleReport', { ...target, instances: [] }));
    return Promise.all(out);
  };

  describe(`adapter.v1 conformance: ${options.adapter}`, () => {
    beforeAll(async () => {
      const namespace =
        typeof options.namespace === 'function' ? options.namespace() : options.namespace;
      client = new AdapterTestClient(options.connection(), options.adapter, {
        namespace,
        timeoutMs: options.timeoutMs,
      });
    });

    it('Info names the adapter, its templates and whether it is session based; replies say their contract version', async () => {
      const reply = await client.call<AdapterInfo>('info', {});
      expect(reply.body.name).toBe(options.adapter);
      expect(ADAPTER_NAME.test(reply.body.name)).toBe(true);
      expect(typeof reply.body.description).toBe('string');
      for (const template of reply.body.templates) expect(ADAPTER_TEMPLATES).toContain(template);
      expect([...reply.body.templates].sort()).toEqual([...new Set(options.templates)].sort());
      expect(reply.body.sessionBased).toBe(sessionBased);
      if (reply.contractVersion !== undefined)
        expect(reply.contractVersion).toMatch(/^adapter\.v1\/1\.\d+\.\d+$/);
    });

    it('Validate accepts the valid config and refuses the invalid one with a message', async () => {
      expect(
        (
          await call<ValidateResponse>('validate', {
            adapterConfig: options.validConfig,
            inferredTypes: {},
          })
        ).status.status,
      ).toBe('OK');
      const refused = await call<ValidateResponse>('validate', {
        adapterConfig: options.invalidConfig,
        inferredTypes: {},
      });
      expect(refused.status.status).not.toBe('OK');
      expect(refused.status.message).not.toBe('');
    });

    it('answers a body that is not JSON with INVALID_ARGUMENT', async () => {
      const reply = await client.call<ValidateResponse>(
        'validate',
        new TextEncoder().encode('{not json'),
      );
      expect(statusProblem(reply.body.status)).toBeUndefined();
      expect(reply.body.status.status).toBe('INVALID_ARGUMENT');
    });

    if (sessionBased) {
      describe('sessions', () => {
        it('CreateSession refuses the invalid config (no session id)', async () => {
          const refused = await createSession(options.invalidConfig);
          expect(refused.status.status).not.toBe('OK');
          expect(refused.sessionId).toBe('');
        });

        it('Handle* on a session that was never created is FAILED_PRECONDITION', async () => {
          const replies = await handles({ sessionId: `unknown-${run}` });
          expect(replies.length).toBe(options.templates.length);
          for (const reply of replies) expect(reply.status.status).toBe('FAILED_PRECONDITION');
        });

        it('the same config (keys in any order) gives the same session, counted by reference: usable until the last CloseSession', async () => {
          const first = await createSession();
          expect(first.status.status).toBe('OK');
          expect(first.sessionId).not.toBe('');
          const second = await createSession(reordered(options.validConfig));
          expect(second).toEqual(first);

          expect((await closeSession(first.sessionId)).status.status).toBe('OK');
          for (const reply of await handles({ sessionId: first.sessionId }))
            expect(reply.status.status).not.toBe('FAILED_PRECONDITION');

          expect((await closeSession(first.sessionId)).status.status).toBe('OK');
          for (const reply of await handles({ sessionId: first.sessionId }))
            expect(reply.status.status).toBe('FAILED_PRECONDITION');
          // Unknown now: an answer the caller takes as closed, so it stops retrying.
          expect(['NOT_FOUND', 'FAILED_PRECONDITION']).toContain(
            (await closeSession(first.sessionId)).status.status,
          );
        });
      });
    } else {
      describe('without sessions', () => {
        it('Handle* runs under the config it carries, and refuses an invalid one', async () => {
          for (const reply of await handles({ adapterConfig: options.validConfig }))
            expect(reply.status.status).not.toBe('FAILED_PRECONDITION');
          for (const reply of await handles({ adapterConfig: options.invalidConfig }))
            expect(reply.status.status).not.toBe('OK');
        });
      });
    }

    if (has('quota')) {
      describe('quota', () => {
        let target: { sessionId: string } | { adapterConfig: Record<string, unknown> };
        beforeAll(async () => {
          if (!sessionBased) return void (target = { adapterConfig: options.validConfig });
          const created = await createSession();
          expect(created.status.status).toBe('OK');
          target = { sessionId: created.sessionId };
        });
        afterAll(async () => {
          if (target && 'sessionId' in target) await closeSession(target.sessionId);
        });
        const quota = async (
          leaseId: string,
          amount: number,
          bestEffort: boolean,
          dedupId: string,
        ) => {
          const name = options.quota?.name ?? 'physical:host';
          const result = await call<QuotaResult>('handleQuota', {
            ...target,
            instance: instance(leaseId, Math.max(1, Math.ceil(amount))),
            quotaRequest: { quotas: { [name]: { amount, bestEffort } }, dedupId },
          });
          expect(result.status.status).toBe('OK');
          const grant = result.quotas[name];
          expect(Number.isInteger(grant.validDuration) && grant.validDuration >= 0).toBe(true);
          expect(grant.grantedAmount).toBeGreaterThanOrEqual(0);
          if (bestEffort) expect(grant.grantedAmount).toBeLessThanOrEqual(amount);
          else expect(grant.grantedAmount === 0 || grant.grantedAmount >= amount).toBe(true);
          return grant.grantedAmount;
        };

        it('grants all or nothing unless best effort; a retried dedup id gets the same answer', async () => {
          const first = await quota(`lease-a-${run}`, 1, false, `dedup-x-${run}`);
          expect(await quota(`lease-a-${run}`, 1, false, `dedup-x-${run}`)).toBe(first);
          await quota(`lease-a-${run}`, 1, true, `dedup-y-${run}`);
        });

        if (budget !== undefined) {
          const half = budget / 2;
          it('charges a retried dedup id once, and grants nothing past the budget', async () => {
            expect(await quota(`lease-b-${run}`, half, false, `dedup-b-${run}`)).toBe(half);
            expect(await quota(`lease-b-${run}`, half, false, `dedup-b-${run}`)).toBe(half);
            // Charged once: the other half is still there, then nothing is.
            const before = await quota(`lease-c-${run}`, half, true, `dedup-c-${run}`);
            expect(before).toBeGreaterThan(0);
            expect(await quota(`lease-d-${run}`, 1, false, `dedup-d-${run}`)).toBe(0);
            expect(await quota(`lease-e-${run}`, 1, true, `dedup-e-${run}`)).toBe(0);
          });

          if (has('report')) {
            it('a lease reported ended at its start gives all its quota back; best effort grants what is left', async () => {
              const lease = instance(`lease-b-${run}`, half);
              const ended = await call<HandleReportResponse>('handleReport', {
                ...target,
                instances: [
                  {
                    kind: 'ended',
                    context: lease.context,
                    lease: lease.lease,
                    at: lease.lease.startDate,
                  },
                ],
              });
              expect(ended.status.status).toBe('OK');
              expect(await quota(`lease-f-${run}`, budget, true, `dedup-f-${run}`)).toBe(half);
              expect(await quota(`lease-g-${run}`, 1, true, `dedup-g-${run}`)).toBe(0);
            });
          }
        }
      });
    }

    if (has('check')) {
      describe('check', () => {
        it('answers with how long and how often the result may be reused (integers ≥ 0)', async () => {
          const created = sessionBased ? await createSession() : undefined;
          try {
            const target = created
              ? { sessionId: created.sessionId }
              : { adapterConfig: options.validConfig };
            const result = await call<CheckResult>('handleCheck', {
              ...target,
              instance: instance(`check-${run}`),
            });
            expect(Number.isInteger(result.validDuration) && result.validDuration >= 0).toBe(true);
            expect(Number.isInteger(result.validUseCount) && result.validUseCount >= 0).toBe(true);
          } finally {
            if (created) await closeSession(created.sessionId);
          }
        });
      });
    }
  });
}
