/**
 * Scenario 3: with 3 ACTIVE experiments, rounds of events into an empty preview schema, once per
 * flow count; after each round every table is VACUUMed and sized, so later rounds show whether
 * growth is flat once the flows repeat.
 */
import { PreviewReport } from '@rollout/contracts';
import { uniqueName } from '@rollout/testing/kit';
import { Experiments } from './experiments';
import { Harness, cpuText } from './harness';
import { MB, STORAGE_EVENTS, STORAGE_FLOWS, STORAGE_ROUNDS, TARGETS, int, mb, out } from './config';
import { flowPool, publishAll, trafficOf } from './workload';
import { BackendCpu, processStats } from './processes';

export async function storage(h: Harness, x: Experiments) {
  const {
    passSchemas,
    nc,
    pg,
    note,
    startEvaluator,
    running,
    cpuAtReady,
    stopEvaluators,
    vacuum,
    sizeOf,
    dropSchema,
    subject,
    purgeTraffic,
    settle,
  } = h;
  const { rules, ensureActive, ALL, reportsOf, listFlows } = x;
  await ensureActive(ALL);
  for (const flowCount of STORAGE_FLOWS) {
    const schema = uniqueName('bench_');
    passSchemas.push(schema);
    await purgeTraffic();
    const flows = flowPool(flowCount, 1000 + flowCount, rules);
    out('');
    out(
      `storage: 3 ACTIVE experiments, ${STORAGE_ROUNDS} rounds of ${int(STORAGE_EVENTS)} events from ${int(flowCount)} distinct flows, into an empty preview schema (VACUUMed after every round; sizes are the sum of pg_total_relation_size over its tables)`,
    );
    const readyAt = await startEvaluator(schema, `storage-${flowCount}`);
    const cpuAtReadiness = cpuAtReady();
    const backends = new BackendCpu(pg);
    await backends.sample();
    await vacuum(schema);
    const baseline = await sizeOf(schema);
    out(`  empty (migrated): ${mb(baseline.bytes)}; rows ${JSON.stringify(baseline.rows)}`);
    const added: number[] = [];
    let previous = baseline.bytes;
    let seen = 0;
    let reports: PreviewReport[] = [];
    let keptAfterRound1 = '';
    for (let round = 1; round <= STORAGE_ROUNDS; round++) {
      const traffic = trafficOf(flows, STORAGE_EVENTS, `st${flowCount}-${round}`);
      seen = Math.min(flowCount, seen + STORAGE_EVENTS);
      const { last } = await publishAll(nc, subject, traffic);
      await settle(last, schema, STORAGE_EVENTS, backends);
      await vacuum(schema);
      const size = await sizeOf(schema);
      added.push(size.bytes - previous);
      previous = size.bytes;
      const report = await reportsOf(ALL, () => round * STORAGE_EVENTS);
      reports = report.reports;
      if (round === 1)
        keptAfterRound1 = ALL.map(
          (id, i) =>
            `${id} ${report.flows[i] === undefined ? 'n/a' : int(report.flows[i] as number)}`,
        ).join(', ');
      out(
        `  round ${round}: ${int(round * STORAGE_EVENTS)} events, ${int(seen)} distinct flows seen: schema ${mb(size.bytes)}, +${mb(added[round - 1])} this round = ${(((added[round - 1] / STORAGE_EVENTS) * 1e6) / MB).toFixed(2)} MB per million events (${((((size.bytes - baseline.bytes) / (round * STORAGE_EVENTS)) * 1e6) / MB).toFixed(2)} MB per million since empty)`,
      );
      out(
        `    rows: ${Object.entries(size.rows)
          .map(([table, n]) => `${table} ${int(n)}`)
          .join(', ')}`,
      );
      out(`    ${report.describe}`);
    }
    await backends.sample();
    const stats = processStats(running());
    const events = STORAGE_ROUNDS * STORAGE_EVENTS;
    const cpu = {
      cpuPerEventUs: ((stats.cpuSeconds - cpuAtReadiness) * 1e6) / events,
      pgCpuPerEventUs: (backends.seconds * 1e6) / events,
    };
    if (reports.length)
      out(
        `  previewFlows: ${(await Promise.all(ALL.map((id, i) => listFlows(id, reports[i])))).join('; ')}`,
      );
    out(
      `  ${cpuText(cpu)} (over ${((performance.now() - readyAt) / 1000).toFixed(0)} s, publishing included); evaluator peak RSS ${stats.peakMb.toFixed(0)} MB`,
    );
    if (added.length > 0) {
      const firstPerMillion = (added[0] / STORAGE_EVENTS) * 1e6;
      // The target's measure: what the whole pass added, per million of its events.
      const passPerMillion =
        (added.reduce((a, b) => a + b, 0) / (added.length * STORAGE_EVENTS)) * 1e6;
      const later = added.slice(1);
      // Flat is judged on the rounds that follow a round by which every flow had been seen.
      const judged = later.filter((_, i) => (i + 1) * STORAGE_EVENTS >= flowCount);
      const flatLimit = Math.max(TARGETS.flatFloorMb * MB, TARGETS.flatShare * added[0]);
      const flat = judged.every((bytes) => bytes <= flatLimit);
      const growth = later
        .map((bytes) => `${bytes >= 0 ? '+' : ''}${(bytes / MB).toFixed(2)}`)
        .join(', ');
      const verdict =
        judged.length === 0
          ? `not judged: ${later.length ? 'no later round follows one by which every flow was seen' : 'one round only'}`
          : `each ≤ ${(flatLimit / MB).toFixed(2)} MB → ${flat ? 'yes' : 'NO'}`;
      out(
        `  → ${(passPerMillion / MB).toFixed(2)} MB per million events over ${int(added.length * STORAGE_EVENTS)} events at ${int(flowCount)} distinct flows (round 1 alone: ${(firstPerMillion / MB).toFixed(2)} MB per million; changed flows kept: ${keptAfterRound1}); later rounds: ${growth || 'none'} MB (flat: ${verdict})`,
      );
      const atTarget = flowCount === TARGETS.storageAtFlows;
      note({
        label: `storage, ${int(flowCount)} flows, per million events`,
        value: `${(passPerMillion / MB).toFixed(2)} MB per million over ${int(added.length * STORAGE_EVENTS)} events (round 1 alone +${mb(added[0])} for ${int(STORAGE_EVENTS)} events${STORAGE_EVENTS < flowCount ? `, only ${int(STORAGE_EVENTS)} distinct flows seen` : ''}; changed flows kept: ${keptAfterRound1})`,
        ...(atTarget
          ? {
              target: `< ${TARGETS.storageMbPerMillion} MB per million`,
              met: passPerMillion / MB < TARGETS.storageMbPerMillion,
            }
          : {}),
      });
      note({
        label: `storage, ${int(flowCount)} flows, later rounds`,
        value: later.length
          ? `${growth} MB per round of ${int(STORAGE_EVENTS)} (max ${(((Math.max(...later) / STORAGE_EVENTS) * 1e6) / MB).toFixed(2)} MB per million)`
          : 'only one round',
        ...(judged.length
          ? {
              target: `flat (each ≤ ${(flatLimit / MB).toFixed(2)} MB once every flow was seen)`,
              met: flat,
            }
          : {}),
      });
      note({
        label: `  CPU per event, peak RSS`,
        value: `evaluator ${cpu.cpuPerEventUs.toFixed(1)} µs, Postgres backends ${cpu.pgCpuPerEventUs.toFixed(1)} µs; ${stats.peakMb.toFixed(0)} MB`,
      });
    }
    await stopEvaluators();
    await dropSchema(schema);
  }
}
