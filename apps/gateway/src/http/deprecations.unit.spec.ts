import { Logger } from '@nestjs/common';
import { StatusError, definePackage } from '@rollout/contracts';
import { ClientMetrics } from '@rollout/platform/metrics';
import { Registry } from 'prom-client';
import { DeprecationPolicy } from './deprecations';

/** A fictional package whose `colour` is disallowed by default (no real field is, yet). */
const WIDGET_V1_PACKAGE = definePackage({
  name: 'widget.v1',
  version: '1.3.0',
  stability: 'stable',
  requests: ['CreateWidgetRequest'],
  replies: ['Widget'],
  events: [],
  resources: ['Widget'],
  requestReply: [
    {
      subject: 'widget.v1.widgets.create',
      service: 'experiment-service',
      request: 'CreateWidgetRequest',
      reply: 'Widget',
    },
  ],
  deprecations: [
    {
      target: 'CreateWidgetRequest.size',
      since: '1.2.0',
      replacement: 'CreateWidgetRequest.sizeMm',
    },
    {
      target: 'CreateWidgetRequest.colour',
      since: '1.3.0',
      replacement: 'CreateWidgetRequest.color',
      disallowedByDefault: true,
    },
  ],
});
const OVERRIDE = 'CONTRACTS_ALLOW_DEPRECATED_WIDGET_V1_CREATEWIDGETREQUEST_COLOUR';
const subject = 'widget.v1.widgets.create';

function policy(env: NodeJS.ProcessEnv) {
  const registry = new Registry();
  return {
    registry,
    policy: new DeprecationPolicy(new ClientMetrics(registry), [WIDGET_V1_PACKAGE], env),
  };
}

async function uses(registry: Registry, field: string): Promise<number> {
  const metric = await registry.getSingleMetric('deprecated_feature_use_total')!.get();
  return metric.values.find((v) => v.labels.field === field)?.value ?? 0;
}

/** What the policy logged as warnings. */
const warnings: string[] = [];
beforeAll(() => {
  const ignore = () => undefined;
  Logger.overrideLogger({
    log: ignore,
    error: ignore,
    warn: (message: unknown, ...rest: unknown[]) =>
      warnings.push(
        String(rest.find((r) => typeof r === 'string' && r.includes(' uses ')) ?? message),
      ),
  });
});
afterAll(() => Logger.overrideLogger(true));

describe('deprecation policy at the gateway', () => {
  it('lets a warned deprecated field through, counted each time and logged once per client and field', async () => {
    const { registry, policy: p } = policy({});
    warnings.length = 0;
    expect(() => p.check(subject, { size: 3 })).not.toThrow();
    expect(() => p.check(subject, { size: 4 })).not.toThrow();
    expect(() => p.check(subject, { sizeMm: 3 })).not.toThrow();
    expect(await uses(registry, 'CreateWidgetRequest.size')).toBe(2);
    expect(warnings).toEqual([
      'unknown uses widget.v1 CreateWidgetRequest.size, deprecated since 1.2.0: use CreateWidgetRequest.sizeMm',
    ]);
  });

  it('refuses a disallowed field with FAILED_PRECONDITION naming it and its override, counted', async () => {
    const { registry, policy: p } = policy({});
    let error: unknown;
    try {
      p.check(subject, { colour: 'red' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).status).toBe('FAILED_PRECONDITION');
    expect((error as StatusError).message).toContain('CreateWidgetRequest.colour');
    expect((error as StatusError).message).toContain(`${OVERRIDE}=true`);
    expect(await uses(registry, 'CreateWidgetRequest.colour')).toBe(1);
  });

  it('allows it (warned and counted) when the override is true, and refuses it when false', async () => {
    const allowed = policy({ [OVERRIDE]: 'true' });
    expect(() => allowed.policy.check(subject, { colour: 'red' })).not.toThrow();
    expect(await uses(allowed.registry, 'CreateWidgetRequest.colour')).toBe(1);
    expect(() => policy({ [OVERRIDE]: 'false' }).policy.check(subject, { colour: 'red' })).toThrow(
      StatusError,
    );
  });

  it('fails at boot on an override that is neither true nor false', () => {
    expect(() => policy({ [OVERRIDE]: 'yes' })).toThrow(
      `${OVERRIDE} must be true or false, not "yes"`,
    );
  });
});
