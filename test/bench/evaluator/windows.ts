/**
 * Scenario 1c: one K = 3 traffic.v1 backlog drained again for each size of counting window, each
 * time into a fresh preview schema from the first message: what a larger window saves Postgres
 * per event. Draining a backlog, a window closes at half of EVALUATOR_CONCURRENCY batches (the
 * time bound, EVALUATOR_WINDOW_MS, is set long enough never to close it first), so the
 * concurrency is what sets its size: 2 → windows of 1 batch (a transaction per batch, as before
 * windows), 8 (the default) → 4, 16 → 8.
 */
import { provisionFromEnv } from '@rollout/provision';
import { uniqueName } from '@rollout/testing/kit';
import { Experiments } from './experiments';
import { Harness, countingText, cpuText } from './harness';
import { EVENTS, FLOWS, WINDOW_CONCURRENCY, int, out } from './config';
import { flowPool, publishAll, trafficOf } from './workload';

export async function windows(h: Harness, x: Experiments) {
  const { passSchemas, evaluatorEnv, nc, jsm, note, stopEvaluators, dropSchema, stream, subject } =
    h;
  const { rules, ensureActive, ALL, reportsOf } = x;
  await ensureActive(ALL);
  await h.purgeTraffic();
  out('');
  out(
    `counting windows: ${int(EVENTS)} traffic.v1 events from ${int(Math.min(FLOWS, EVENTS))} distinct flows, 3 ACTIVE experiments, drained once per window size (EVALUATOR_CONCURRENCY ${WINDOW_CONCURRENCY.join(', ')}: windows of half as many batches)`,
  );
  const { last } = await publishAll(
    nc,
    subject,
    trafficOf(flowPool(FLOWS, 1, rules), EVENTS, 'windows'),
  );
  for (const concurrency of WINDOW_CONCURRENCY) {
    await jsm.consumers.delete(stream, 'evaluator').catch(() => undefined);
    await provisionFromEnv(evaluatorEnv);
    const schema = uniqueName('bench_');
    passSchemas.push(schema);
    const measured = await drain(h, schema, last, concurrency);
    const { exact } = await reportsOf(ALL, () => EVENTS);
    await stopEvaluators();
    await dropSchema(schema);
    const line = `${int(measured.evaluated)} events/s; ${cpuText(measured)}; ${countingText(measured.counting, EVENTS)}; totals exact: ${exact ? 'yes' : 'NO'}`;
    out(`  EVALUATOR_CONCURRENCY ${concurrency}: ${line}`);
    note({
      label: `windows of ${Math.max(1, Math.floor(concurrency / 2))} batches, 3 ACTIVE, traffic.v1`,
      value: `Postgres ${measured.pgCpuPerEventUs.toFixed(1)} µs/event, evaluator ${measured.cpuPerEventUs.toFixed(1)} µs/event, ${int(measured.evaluated)} events/s`,
    });
  }
}

const drain = (h: Harness, schema: string, last: number, concurrency: number) =>
  h.drain(schema, last, EVENTS, {
    label: `window-concurrency-${concurrency}`,
    env: { EVALUATOR_CONCURRENCY: String(concurrency), EVALUATOR_WINDOW_MS: '10000' },
  });
