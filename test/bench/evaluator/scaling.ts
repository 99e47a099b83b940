/**
 * Scenario 1b: a K = 3 backlog drained by one evaluator process, then by two sharing the durable
 * consumer.
 */
import { provisionFromEnv } from '@rollout/provision';
import { uniqueName } from '@rollout/testing/kit';
import { Experiments } from './experiments';
import { Harness, cpuText } from './harness';
import { EVENTS, FLOWS, int, out } from './config';
import { flowPool, publishAll, trafficOf } from './workload';

export async function scaling(h: Harness, x: Experiments) {
  const {
    passSchemas,
    evaluatorEnv,
    nc,
    jsm,
    note,
    stopEvaluators,
    dropSchema,
    stream,
    subject,
    purgeTraffic,
    drain,
  } = h;
  const { rules, ensureActive, ALL, reportsOf } = x;
  await ensureActive(ALL);
  await purgeTraffic();
  out('');
  out(
    `more than one core: ${int(EVENTS)} traffic.v1 events from ${int(Math.min(FLOWS, EVENTS))} distinct flows, 3 ACTIVE experiments, drained by 1 and then by 2 evaluator processes sharing the durable consumer (each time into a fresh preview schema, the durable recreated)`,
  );
  const { last } = await publishAll(
    nc,
    subject,
    trafficOf(flowPool(FLOWS, 1, rules), EVENTS, 'scaling'),
  );
  const runs: { processes: number; evaluated: number; exact: boolean }[] = [];
  for (const processes of [1, 2]) {
    await jsm.consumers.delete(stream, 'evaluator').catch(() => undefined);
    // The evaluator creates no consumer: the provisioning step declares it again, from the first message.
    await provisionFromEnv(evaluatorEnv);
    const schema = uniqueName('bench_');
    passSchemas.push(schema);
    const measured = await drain(schema, last, EVENTS, {
      processes,
      label: `scaling-k3`,
    });
    const { exact, describe } = await reportsOf(ALL, () => EVENTS);
    await stopEvaluators();
    await dropSchema(schema);
    out(
      `  ${processes} process${processes > 1 ? 'es' : ''}: ${int(measured.evaluated)} events/s evaluated, ${int(measured.settledOnly)} to the last acknowledgement${processes > 1 ? ` (the second ready ${measured.startLagMs.toFixed(0)} ms after the first, counted in the time)` : ''}; ${cpuText(measured)} (summed over the processes); peak RSS ${measured.peakMb.toFixed(0)} MB; ${describe}`,
    );
    runs.push({ processes, evaluated: measured.evaluated, exact });
  }
  const scaling = runs[1].evaluated / runs[0].evaluated;
  out(`  → 2 processes evaluate ${scaling.toFixed(2)} × what 1 does`);
  note({
    label: 'more than one core, 3 ACTIVE, traffic.v1',
    value: `1 process ${int(runs[0].evaluated)} events/s, 2 processes ${int(runs[1].evaluated)} events/s = ${scaling.toFixed(2)} ×`,
  });
  note({
    label: '  report totals exact with 1 and 2 processes',
    value: runs.every((r) => r.exact) ? 'yes' : 'NO',
    target: 'exact',
    met: runs.every((r) => r.exact),
  });
}
