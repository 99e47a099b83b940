/**
 * Scenario 1c: one K = 3 traffic.v1 backlog drained again for each counting window
 * (EVALUATOR_WINDOW_MS), each time into a fresh preview schema from the first message: what a
 * longer window saves Postgres per event, and what it costs in report lag.
 */
import { provisionFromEnv } from '@rollout/platform/nats';
import { uniqueName } from '@rollout/testing/kit';
import { Experiments } from './experiments';
import { Harness, countingText, cpuText } from './harness';
import { EVENTS, FLOWS, WINDOWS_MS, int, out } from './config';
import { flowPool, publishAll, trafficOf } from './workload';

export async function windows(h: Harness, x: Experiments) {
  const { passSchemas, evaluatorEnv, nc, jsm, note, stopEvaluators, dropSchema, stream, subject } =
    h;
  const { rules, ensureActive, ALL, reportsOf } = x;
  await ensureActive(ALL);
  await h.purgeTraffic();
  out('');
  out(
    `counting windows: ${int(EVENTS)} traffic.v1 events from ${int(Math.min(FLOWS, EVENTS))} distinct flows, 3 ACTIVE experiments, drained once per EVALUATOR_WINDOW_MS (${WINDOWS_MS.join(', ')} ms)`,
  );
  const { last } = await publishAll(
    nc,
    subject,
    trafficOf(flowPool(FLOWS, 1, rules), EVENTS, 'windows'),
  );
  for (const windowMs of WINDOWS_MS) {
    await jsm.consumers.delete(stream, 'evaluator').catch(() => undefined);
    await provisionFromEnv(evaluatorEnv);
    const schema = uniqueName('bench_');
    passSchemas.push(schema);
    const measured = await drain(h, schema, last, windowMs);
    const { exact } = await reportsOf(ALL, () => EVENTS);
    await stopEvaluators();
    await dropSchema(schema);
    const line = `${int(measured.evaluated)} events/s; ${cpuText(measured)}; ${countingText(measured.counting, EVENTS)}; totals exact: ${exact ? 'yes' : 'NO'}`;
    out(`  window ${windowMs} ms: ${line}`);
    note({
      label: `window ${windowMs} ms, 3 ACTIVE, traffic.v1`,
      value: `Postgres ${measured.pgCpuPerEventUs.toFixed(1)} µs/event, evaluator ${measured.cpuPerEventUs.toFixed(1)} µs/event, ${int(measured.evaluated)} events/s`,
    });
  }
}

const drain = (h: Harness, schema: string, last: number, windowMs: number) =>
  h.drain(schema, last, EVENTS, {
    label: `window-${windowMs}ms`,
    env: { EVALUATOR_WINDOW_MS: String(windowMs) },
  });
