import type { INestApplication } from '@nestjs/common';
import { PREVIEW_SUBJECTS, PreviewReport } from '@rollout/contracts';
import { METRICS_REGISTRY } from '@rollout/platform/metrics';
import { NatsRpcClient } from '@rollout/platform/nats';
import { PolicyView } from '@rollout/domain/preview';
import { eventually } from '@rollout/testing/kit';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { PreviewStateService } from '../src/state/preview-state.service';
import { ExperimentWorld } from './experiment-world';

/** Test helpers: what a running evaluator shows (its metrics, its state, its reports). */

/** The sum of a metric's values with these labels. */
export async function metric(
  app: INestApplication,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const found = await app.get<Registry>(METRICS_REGISTRY).getSingleMetric(name)?.get();
  return (
    found?.values
      .filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))
      .reduce((sum, v) => sum + v.value, 0) ?? 0
  );
}

/** The evaluator's /readyz answer: whether it is ready, its HTTP status and each check. */
export async function readiness(app: INestApplication) {
  const { port } = app.getHttpServer().address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}/readyz`);
  const { checks } = (await response.json()) as {
    checks: Record<string, { status: string; error?: string }>;
  };
  return { ready: response.ok, status: response.status, checks };
}

/** Waits until the evaluator's view of a live policy satisfies `ready` (the event has been applied). */
export const inForce = (
  app: INestApplication,
  world: ExperimentWorld,
  policy: string,
  ready: (view: PolicyView) => boolean,
) =>
  eventually(
    () => {
      const view = app.get(PreviewStateService).state.viewOf(world.policyName(policy));
      return view && ready(view) ? true : undefined;
    },
    { what: `state of ${policy} in force` },
  );

/** previewReport of an experiment, asked over NATS as the gateway asks it (given longer under heavy load). */
export const previewReport = (
  rpc: NatsRpcClient,
  world: ExperimentWorld,
  experiment: string,
  policy = 'web',
  timeoutMs = 5_000,
) =>
  rpc.request<PreviewReport>(
    PREVIEW_SUBJECTS.previewReport,
    { name: world.experimentName(policy, experiment) },
    { timeoutMs },
  );
