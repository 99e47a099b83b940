/**
 * Scenario 4: the evaluator's peak RSS over BENCH_MEMORY_EVENTS events, per traffic major, while
 * operators churn (unless BENCH_MEMORY_CHURN=0): experiments made and previewed one after another
 * beside the three that count, a third of them committed, every sixth commit rolled back, the
 * rest stopped and deleted; so views, configurations and cohorts are replaced all along, and
 * what the evaluator keeps of them must be forgotten.
 */
import {
  CommitRequest,
  DeleteRequest,
  EXPERIMENT_SUBJECTS,
  FirewallPolicy,
  FirewallPolicyExperiment,
  GetRequest,
  Operation,
  PreviewRequest,
  RollbackRequest,
} from '@rollout/contracts';
import { uniqueName } from '@rollout/testing/kit';
import { Experiments } from './experiments';
import { Harness, cpuText } from './harness';
import {
  BATCH,
  MEMORY_CHURN,
  MEMORY_EVENTS,
  MEMORY_FLOWS,
  MEMORY_MAJORS,
  TARGETS,
  errorText,
  int,
  out,
  sleep,
} from './config';
import { flowPool, trafficOf } from './workload';

export async function memory(h: Harness, x: Experiments) {
  const { passSchemas, note, stopEvaluators, dropSchema, publish, purgeTraffic, drain } = h;
  const { rules, ensureActive, ALL, reportsOf } = x;
  await ensureActive(ALL);
  const flows = flowPool(MEMORY_FLOWS, 3, rules);
  for (const major of MEMORY_MAJORS) {
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
    const churn = MEMORY_CHURN ? churning(h, x, major) : undefined;
    const measured = await drain(schema, last, MEMORY_EVENTS, { label: `memory-${major}` });
    const churned = await churn?.stop();
    if (churned) out(`  meanwhile: ${churned}`);
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

/** Operators' churn on the bench policy until stopped: what it did, or the first error it met. */
function churning(h: Harness, x: Experiments, tag: string) {
  const { ask } = h;
  const counts = { previewed: 0, committed: 0, rolledBack: 0, deleted: 0 };
  let running = true;
  let failure: string | undefined;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const id = `churn-${tag}-${i}`;
      const name = x.experimentName(id);
      await ask<Operation>(EXPERIMENT_SUBJECTS.createExperiment, {
        parent: x.policyName,
        experimentId: id,
        experiment: { firewallPolicy: { rules: x.rulesOf(`tenth-${1 + (i % 7)}`) } },
        actor: 'bench',
      });
      await ask<Operation>(EXPERIMENT_SUBJECTS.startPreview, {
        name,
        actor: 'bench',
      } satisfies PreviewRequest);
      counts.previewed++;
      await sleep(150);
      if (i % 3 === 2) {
        const experiment = await ask<FirewallPolicyExperiment>(EXPERIMENT_SUBJECTS.getExperiment, {
          name,
        } satisfies GetRequest);
        const policy = await ask<FirewallPolicy>(EXPERIMENT_SUBJECTS.getPolicy, {
          name: x.policyName,
        } satisfies GetRequest);
        await ask<Operation>(EXPERIMENT_SUBJECTS.commit, {
          name,
          etag: experiment.etag,
          livePolicyEtag: policy.etag,
          actor: 'bench',
        } satisfies CommitRequest);
        counts.committed++;
        if (counts.committed % 6 === 0) {
          const live = await ask<FirewallPolicy>(EXPERIMENT_SUBJECTS.getPolicy, {
            name: x.policyName,
          } satisfies GetRequest);
          await ask<Operation>(EXPERIMENT_SUBJECTS.rollback, {
            name: x.policyName,
            revisionId: '1',
            etag: live.etag as string,
            actor: 'bench',
          } satisfies RollbackRequest);
          counts.rolledBack++;
        }
      } else {
        await ask<Operation>(EXPERIMENT_SUBJECTS.stopPreview, {
          name,
          actor: 'bench',
        } satisfies PreviewRequest);
        await ask<Operation>(EXPERIMENT_SUBJECTS.deleteExperiment, {
          name,
          actor: 'bench',
        } satisfies DeleteRequest);
        counts.deleted++;
      }
    }
  })().catch((error: unknown) => {
    failure = errorText(error);
  });
  return {
    async stop() {
      running = false;
      await loop;
      const done = `${counts.previewed} experiments previewed, ${counts.committed} committed, ${counts.rolledBack} of those rolled back, ${counts.deleted} stopped and deleted`;
      return failure ? `${done}; then the churn stopped: ${failure}` : done;
    },
  };
}
