/**
 * Scenario 1: events/s by the number K of ACTIVE experiments (traffic.v1 with K = 1, 3, 10;
 * traffic.v2alpha batches of 100 with K = 1, 10), next to the raw pull+ack rate of the same
 * messages measured just before, on the same stream and consumer.
 */
import { PREVIEW_LOGS_STREAM } from '@rollout/contracts';
import { provisionFromEnv } from '@rollout/provision';
import { uniqueName } from '@rollout/testing/kit';
import { Experiments } from './experiments';
import { Harness, SummaryLine, countingText, cpuText } from './harness';
import {
  BASELINE,
  BATCH,
  EVENTS,
  FLOWS,
  SKIP_V1_K10,
  SKIP_V2ALPHA_K10,
  TARGETS,
  int,
  out,
} from './config';
import { decompositionText, stageCosts } from './stages';
import { flowPool, rawRate, trafficOf } from './workload';

export async function throughput(h: Harness, x: Experiments) {
  const {
    baselineRoot,
    evaluatorEnv,
    ns,
    schemas,
    passSchemas,
    nc,
    jsm,
    note,
    stopEvaluators,
    dropSchema,
    stream,
    publish,
    purgeTraffic,
    metricsLine,
    drain,
  } = h;
  const { rules, rulesOf, ensureActive, ALL, TEN, createTenths, deleteTenths, reportsOf } = x;
  out(
    `throughput: ${int(EVENTS)} events per scenario from ${int(Math.min(FLOWS, EVENTS))} distinct flows, one live policy of 1,000 rules`,
  );
  const throughputFlows = flowPool(FLOWS, 1, rules);
  type Major = 'v1' | 'v2alpha';
  const results: {
    experiments: number;
    major: Major;
    raw: number;
    rawMessages: number;
    rawCpuUs: number;
    evaluated: number;
    settledOnly: number;
    peakMb: number;
    cpuPerEventUs: number;
    pgCpuPerEventUs: number;
    /** PREVIEW_LOGS `state.bytes` added over the scenario, per event. */
    logBytesPerEvent: number;
    logMessages: number;
    /** The stream's limits discarded some of the scenario's logs: the bytes are a floor. */
    logsDiscarded: boolean;
    exact: boolean;
    baseline?: number;
  }[] = [];
  const expected: Record<string, number> = {};
  const scenarios: { experiments: number; major: Major; ids: readonly string[] }[] = [
    { experiments: 1, major: 'v1', ids: ['flip'] },
    { experiments: 1, major: 'v2alpha', ids: ['flip'] },
    { experiments: 3, major: 'v1', ids: ALL },
    ...(SKIP_V1_K10 ? [] : [{ experiments: 10, major: 'v1' as const, ids: TEN }]),
    ...(SKIP_V2ALPHA_K10 ? [] : [{ experiments: 10, major: 'v2alpha' as const, ids: TEN }]),
  ];
  const logsStream = ns.stream(PREVIEW_LOGS_STREAM);
  for (const { experiments, major, ids } of scenarios) {
    if (experiments === 10) await createTenths();
    await ensureActive(ids);
    for (const id of ids) expected[id] = (expected[id] ?? 0) + EVENTS;
    await purgeTraffic();
    await jsm.streams.purge(logsStream);
    const logsBefore = (await jsm.streams.info(logsStream)).state;
    const label = `${major}-k${experiments}`;
    const traffic = trafficOf(throughputFlows, EVENTS, label);
    out(
      `  publishing ${int(EVENTS)} events (${experiments} ACTIVE experiment${experiments > 1 ? 's' : ''}, traffic.${major}${major === 'v2alpha' ? ` in batches of ${BATCH}` : ''})…`,
    );
    const { first, last, messages } = await publish(major, traffic);
    const { rate: rawMessages, cpuPerMessageUs: rawCpuUs } = await rawRate(
      nc,
      stream,
      first,
      messages,
    );
    const raw = (rawMessages * EVENTS) / messages;
    const measured = await drain(schemas.preview, last, EVENTS, { label });
    const logsAfter = (await jsm.streams.info(logsStream)).state;
    const logs = {
      logBytesPerEvent: (logsAfter.bytes - logsBefore.bytes) / EVENTS,
      logMessages: logsAfter.messages - logsBefore.messages,
      logsDiscarded: logsAfter.first_seq > logsBefore.last_seq + 1,
    };
    const { exact, describe } = await reportsOf(ids, (id) => expected[id]);
    out(`    ${describe}; ${await metricsLine()}`);
    out(`    ${countingText(measured.counting, EVENTS)}`);
    note({
      label: `  Postgres rows written, ${label}`,
      value: countingText(measured.counting, EVENTS),
    });
    await stopEvaluators();
    const stages = stageCosts(
      major,
      traffic,
      rules,
      ids.map((id) => ({ id, rules: rulesOf(id) })),
    );
    const decomposition = decompositionText(
      stages,
      (rawCpuUs * messages) / EVENTS,
      measured.cpuPerEventUs,
      measured.pgCpuPerEventUs,
    );
    out(`    decomposition: ${decomposition}`);
    note({ label: `  decomposition, ${label} (µs per event)`, value: decomposition });
    let baseline: number | undefined;
    if (baselineRoot) {
      // The same backlog again, from its first message, for the other build's evaluator: the
      // provisioning step declares the durable again (the evaluator creates none).
      await jsm.consumers.delete(stream, 'evaluator');
      await provisionFromEnv(evaluatorEnv);
      const schema = uniqueName('bench_');
      passSchemas.push(schema);
      baseline = (
        await drain(schema, last, EVENTS, { root: baselineRoot, label: `baseline-${label}` })
      ).evaluated;
      out(
        `    baseline ${BASELINE}: ${int(baseline)} events/s evaluated on the same backlog; this build ${(measured.evaluated / baseline).toFixed(2)} × baseline`,
      );
      await stopEvaluators();
      await dropSchema(schema);
    }
    results.push({
      experiments,
      major,
      raw,
      rawMessages,
      rawCpuUs,
      ...measured,
      ...logs,
      exact,
      baseline,
    });
  }
  await deleteTenths();
  out('');
  out(
    `evaluator end to end: ${int(EVENTS)} traffic events from ${int(Math.min(FLOWS, EVENTS))} distinct flows, one live policy of 1,000 rules (2 shared cores; NATS, Postgres and this load generator included)`,
  );
  const logsText = (r: (typeof results)[number]) =>
    `PREVIEW_LOGS ${int(r.logBytesPerEvent)} bytes per event (${int(r.logMessages)} messages${r.logsDiscarded ? '; the stream discarded some: a floor' : ''})`;
  for (const r of results) {
    const k = `${r.experiments} ACTIVE experiment${r.experiments > 1 ? 's' : ''}`;
    const logsNote: SummaryLine = {
      label: `  PREVIEW_LOGS per event`,
      value: `${int(r.logBytesPerEvent)} bytes (${int(r.logMessages)} messages for ${int(EVENTS)} events)${r.logsDiscarded ? ', a floor: the stream discarded some' : ''}`,
    };
    if (r.major === 'v2alpha') {
      // The same work per event, fewer messages; compared with v1's raw rate of one event per message.
      const v1 = results.find((v) => v.major === 'v1' && v.experiments === r.experiments);
      const againstV1 = v1
        ? ` = ${(r.evaluated / v1.raw).toFixed(2)} × v1 raw (${(r.evaluated / v1.evaluated).toFixed(2)} × v1 evaluated)`
        : '';
      const target = TARGETS.v2alphaCpuUs[r.experiments];
      const cpuMet = target === undefined || r.cpuPerEventUs <= target;
      out(
        `  ${k}, traffic.v2alpha batches of ${BATCH}: ${int(r.evaluated)} events/s evaluated${againstV1}; ` +
          `${int(r.settledOnly)} events/s to the last acknowledgement; raw JetStream pull-consume-and-ack of the same batches: ${int(r.rawMessages)} msgs/s (${int(r.raw)} events/s); ` +
          `${cpuText(r)}${target === undefined ? '' : ` (evaluator target ≤ ${target} µs → ${cpuMet ? 'met' : 'NOT met'})`}; ${logsText(r)}; evaluator peak RSS ${r.peakMb.toFixed(0)} MB; totals exact: ${r.exact ? 'yes' : 'NO'}`,
      );
      note({
        label: `throughput, ${r.experiments} ACTIVE, traffic.v2alpha ×${BATCH}`,
        value: `${int(r.evaluated)} events/s${againstV1}; raw ${int(r.raw)} events/s`,
      });
      note({
        label: `  evaluator CPU per event`,
        value: `${r.cpuPerEventUs.toFixed(1)} µs (Postgres backends ${r.pgCpuPerEventUs.toFixed(1)} µs); peak RSS ${r.peakMb.toFixed(0)} MB`,
        ...(target === undefined ? {} : { target: `≤ ${target} µs`, met: cpuMet }),
      });
    } else {
      const ratio = r.evaluated / r.raw;
      const target = TARGETS.ratio[r.experiments];
      out(
        `  ${k}, traffic.v1: ${int(r.evaluated)} events/s evaluated (report durable, PREVIEW_LOGS published) = ${ratio.toFixed(2)} × raw; ` +
          `${int(r.settledOnly)} events/s to the last acknowledgement; raw JetStream pull-consume-and-ack of the same events: ${int(r.raw)} msgs/s (${r.rawCpuUs.toFixed(1)} µs of the consuming process's CPU per message); ` +
          `${cpuText(r)}; ${logsText(r)}; evaluator peak RSS ${r.peakMb.toFixed(0)} MB; totals exact: ${r.exact ? 'yes' : 'NO'}; target ≥ ${target} × raw → ${ratio >= target ? 'met' : 'NOT met'}`,
      );
      note({
        label: `throughput, ${r.experiments} ACTIVE, traffic.v1`,
        value: `${int(r.evaluated)} events/s = ${ratio.toFixed(2)} × raw (${int(r.raw)} msgs/s)`,
        target: `≥ ${target} × raw`,
        met: ratio >= target,
      });
      note({
        label: `  CPU per event, peak RSS`,
        value: `evaluator ${r.cpuPerEventUs.toFixed(1)} µs (raw pull+ack alone: ${r.rawCpuUs.toFixed(1)} µs per message), Postgres backends ${r.pgCpuPerEventUs.toFixed(1)} µs; ${r.peakMb.toFixed(0)} MB`,
      });
      if (r.experiments === 3)
        note({
          label: `  Postgres backends' CPU per event`,
          value: `${r.pgCpuPerEventUs.toFixed(1)} µs`,
          target: `≤ ${TARGETS.pgCpuUsAt3} µs`,
          met: r.pgCpuPerEventUs <= TARGETS.pgCpuUsAt3,
        });
    }
    note(logsNote);
    if (r.baseline !== undefined) {
      const share = r.evaluated / r.baseline;
      note({
        label: `  against ${BASELINE}, same backlog`,
        value: `${int(r.evaluated)} vs ${int(r.baseline)} events/s = ${share.toFixed(2)} × baseline`,
        target: '≥ 0.9 × baseline',
        met: share >= 0.9,
      });
    }
  }
  // cost(K)/cost(1): the CPU per event by ACTIVE experiments, per major.
  for (const major of ['v1', 'v2alpha'] as const) {
    const byK = results.filter((r) => r.major === major);
    const one = byK.find((r) => r.experiments === 1);
    if (!one || byK.length < 2) continue;
    const growth = (r: (typeof results)[number]) => ({
      evaluator: r.cpuPerEventUs / one.cpuPerEventUs,
      postgres: r.pgCpuPerEventUs / one.pgCpuPerEventUs,
      both: (r.cpuPerEventUs + r.pgCpuPerEventUs) / (one.cpuPerEventUs + one.pgCpuPerEventUs),
    });
    out(
      `  CPU per event by ACTIVE experiments, traffic.${major}${major === 'v2alpha' ? ` ×${BATCH}` : ''}, cost(K)/cost(1): ` +
        byK
          .filter((r) => r !== one)
          .map((r) => {
            const g = growth(r);
            return `K=${r.experiments}: evaluator ${r.cpuPerEventUs.toFixed(1)} / ${one.cpuPerEventUs.toFixed(1)} µs = ${g.evaluator.toFixed(2)} ×, Postgres backends ${r.pgCpuPerEventUs.toFixed(1)} / ${one.pgCpuPerEventUs.toFixed(1)} µs = ${g.postgres.toFixed(2)} ×, both ${g.both.toFixed(2)} ×`;
          })
          .join('; ') +
        ` (target at K=10: evaluator ≤ ${TARGETS.cpuGrowthAt10} ×)`,
    );
    for (const r of byK.filter((k) => k !== one)) {
      const g = growth(r);
      note({
        label: `CPU per event, ${r.experiments} / 1 ACTIVE, traffic.${major}`,
        value: `evaluator ${g.evaluator.toFixed(2)} × (${r.cpuPerEventUs.toFixed(1)} / ${one.cpuPerEventUs.toFixed(1)} µs); Postgres backends ${g.postgres.toFixed(2)} ×; both ${g.both.toFixed(2)} ×`,
        ...(r.experiments === 10
          ? { target: `≤ ${TARGETS.cpuGrowthAt10} ×`, met: g.evaluator <= TARGETS.cpuGrowthAt10 }
          : {}),
      });
    }
  }
  note({
    label: 'throughput report totals exact',
    value: results.every((r) => r.exact) ? 'yes' : 'NO',
    target: 'exact',
    met: results.every((r) => r.exact),
  });
}
