/** Scenario 4: the evaluator's peak RSS over BENCH_MEMORY_EVENTS events, per traffic major. */
import { uniqueName } from '@rollout/testing/kit';
import { Experiments } from './experiments';
import { Harness, cpuText } from './harness';
import { BATCH, MEMORY_EVENTS, MEMORY_FLOWS, TARGETS, int, out } from './config';
import { flowPool, trafficOf } from './workload';

export async function memory(h: Harness, x: Experiments) {
  const { passSchemas, note, stopEvaluators, dropSchema, publish, purgeTraffic, drain } = h;
  const { rules, ensureActive, ALL, reportsOf } = x;
  await ensureActive(ALL);
  const flows = flowPool(MEMORY_FLOWS, 3, rules);
  for (const major of ['v1', 'v2alpha'] as const) {
    const schema = uniqueName('bench_');
    passSchemas.push(schema);
    await purgeTraffic();
    const traffic = trafficOf(flows, MEMORY_EVENTS, `m${major}`);
    out('');
    const publishedAt = performance.now();
    out(
      `memory: publishing ${int(MEMORY_EVENTS)} events from ${int(traffic.flows)} distinct flows, 3 ACTIVE experiments, traffic.${major}${major === 'v2alpha' ? ` in batches of ${BATCH}` : ''}…`,
    );
    const { last } = await publish(major, traffic);
    out(
      `  published in ${((performance.now() - publishedAt) / 1000).toFixed(0)} s; a fresh evaluator on an empty schema evaluates them…`,
    );
    const measured = await drain(schema, last, MEMORY_EVENTS, { label: `memory-${major}` });
    const { exact, describe } = await reportsOf(ALL, () => MEMORY_EVENTS);
    const met = measured.peakMb < TARGETS.rssMb;
    out(`  ${describe}`);
    out(
      `  ${int(measured.evaluated)} events/s evaluated; ${cpuText(measured)}; evaluator peak RSS (VmHWM) ${measured.peakMb.toFixed(0)} MB, RSS at the end ${measured.rssMb.toFixed(0)} MB → target < ${TARGETS.rssMb} MB ${met ? 'met' : 'NOT met'}; totals exact: ${exact ? 'yes' : 'NO'}`,
    );
    note({
      label: `memory, ${int(MEMORY_EVENTS)} events, 3 ACTIVE, ${int(traffic.flows)} flows, traffic.${major}${major === 'v2alpha' ? ` ×${BATCH}` : ''}`,
      value: `peak RSS ${measured.peakMb.toFixed(0)} MB`,
      target: `< ${TARGETS.rssMb} MB`,
      met,
    });
    note({
      label: `  CPU per event, rate, totals`,
      value: `evaluator ${measured.cpuPerEventUs.toFixed(1)} µs, Postgres backends ${measured.pgCpuPerEventUs.toFixed(1)} µs; ${int(measured.evaluated)} events/s; totals exact ${exact ? 'yes' : 'NO'}`,
    });
    await stopEvaluators();
    await dropSchema(schema);
  }
}
