/**
 * The evaluator end to end, with one live policy of 1,000 rules and traffic drawn from a pool of
 * distinct flows (direction, source and destination address, protocol and destination port fixed
 * per flow; the source port and the event id vary per event, ids unique). The experiment-service
 * and the evaluator run as their own processes from the build output (built first), the
 * evaluator with the Node options of its Kubernetes config; every measure of the evaluator is
 * taken on a fresh process (its peak RSS, VmHWM, is that scenario's).
 *
 * 1. Throughput: BENCH_EVENTS events (200,000) from BENCH_FLOWS distinct flows (100,000), by the
 *    number K of ACTIVE experiments on the one policy: traffic.v1 with K = 1, 3 and 10, and
 *    traffic.v2alpha batches of 100 events (the next major, beside traffic.v1 on the same stream
 *    and consumer) with K = 1 and 10. K = 1 is `flip` (every tenth rule's action flipped); K = 3
 *    adds `lockdown` (a new deny rule in front) and `noop` (no rules: previews deleting the
 *    policy); K = 10 adds seven experiments that each flip another tenth of the rules' actions,
 *    so all ten disagree with each other and with the live policy (they are deleted after the
 *    K = 10 scenarios: a policy holds at most ten experiments, and the freshness rounds create
 *    one). For each: the events/s the evaluator evaluates with its report durable and every
 *    preview log on PREVIEW_LOGS, next to the raw JetStream pull-consume-and-ack rate of the same
 *    messages measured in the same run, just before; the evaluator's CPU per event and its
 *    Postgres backends'; the bytes PREVIEW_LOGS grew by per event (its `state.bytes` over the
 *    scenario, the stream purged first); and cost(K)/cost(1) of the CPU per event, per major.
 *    Targets: ≥ 0.8 × raw with K = 1, ≥ 0.7 × with 3, ≥ 0.5 × with 10 (traffic.v1); evaluator
 *    CPU ≤ 10 µs per event with K = 1 and ≤ 20 µs with 10 (traffic.v2alpha); CPU per event with
 *    K = 10 ≤ 1.5 × that with K = 1; Postgres CPU ≤ 5 µs per event with K = 3 (traffic.v1).
 *    BENCH_SKIP_V1_K10=1 and BENCH_SKIP_V2ALPHA_K10=1 skip the K = 10 scenarios.
 *    Every evaluator the bench starts runs with PREVIEW_LOGS_PER_EXPERIMENT=false (only the
 *    per-policy log, one record per event, on an evaluator that has it; an older one ignores
 *    the variable); BENCH_PREVIEW_LOGS_PER_EXPERIMENT=true measures the deprecated
 *    per-experiment records as well.
 * 1b. More than one core: a backlog of BENCH_EVENTS traffic.v1 events with K = 3, drained by one
 *    evaluator process and then by two sharing the durable consumer (each time a fresh preview
 *    schema and the durable recreated, as BENCH_BASELINE does): events/s of both, the scaling
 *    ratio, and whether the totals are exact. BENCH_SKIP_SCALING=1 skips it.
 * 2. State-change freshness: after startPreview, an experiment update, stopPreview, a live policy
 *    update or a commit returns, how late traffic can still be evaluated against the old state
 *    (probe events published every few ms, their records read back from PREVIEW_LOGS, the
 *    complete per-event log, in either of its shapes; p50/p99/max), on a fresh evaluator with
 *    flip and lockdown ACTIVE. Target: p99 ≤ 200 ms.
 * 3. Storage: with 3 ACTIVE experiments, BENCH_STORAGE_ROUNDS rounds (4) of BENCH_STORAGE_EVENTS
 *    events (250,000) from 1,000 and then from 100,000 distinct flows (BENCH_STORAGE_FLOWS), each
 *    pass into an empty preview schema. After each round (everything settled), every table of
 *    the schema is VACUUMed and the schema measured: the sum of pg_total_relation_size over its
 *    tables, the bytes the round added per million events, and every table's row count.
 *    Targets: at 1,000 flows under 20 MB per million events (what the pass added over all its
 *    events: a million by default); flat growth once the flows repeat (each later round adds at
 *    most 10% of what round 1 added, or under 1 MB).
 * 4. Memory: BENCH_MEMORY_EVENTS events (2,000,000) with 3 ACTIVE experiments from
 *    BENCH_MEMORY_FLOWS distinct flows (100,000), once as traffic.v1 and once as traffic.v2alpha
 *    batches of 100: the evaluator's peak RSS. Target: under 300 MB. BENCH_SKIP_MEMORY=1 skips it
 *    (it dominates the run time); BENCH_SKIP_STORAGE=1 skips the storage passes and
 *    BENCH_FRESHNESS_ROUNDS=0 the freshness.
 *
 * BENCH_BASELINE=<git revision> also builds that revision (in a temporary worktree) and, after
 * each throughput scenario, lets its evaluator drain the same backlog from the start (the durable
 * consumer recreated, a fresh preview schema): the same-run ratio of this build to that one. With
 * the revision before the report's insight sections, it is what they cost.
 *
 * A share of the flows (BENCH_RULE_FLOWS, 0.8) is aimed at a random rule of the live policy, so a
 * fair share of decisions change and the changed flows the evaluator keeps grow with the flows.
 *
 * Every scenario also prints the evaluator's CPU per event and that of its Postgres backends
 * (application_name = 'evaluator'). A summary block at the end lists every figure with its
 * target, met or NOT met.
 *
 * BENCH_PROFILE=evaluator runs every evaluator with --cpu-prof (profiles in /tmp/prof, one per
 * process, named after its scenario) and prints, for each, the share of its sampled CPU time
 * (idle excluded) in garbage collection (self time of "(garbage collector)") and in socket
 * writes (self time of functions named like writev, writeBuffer or _writeGeneric).
 *
 *   npm run bench -- test/bench/evaluator.bench.ts
 *   (BENCH_EVENTS, BENCH_FLOWS, BENCH_FRESHNESS_ROUNDS, BENCH_STORAGE_EVENTS, BENCH_STORAGE_ROUNDS,
 *    BENCH_STORAGE_FLOWS=1000,100000, BENCH_MEMORY_EVENTS, BENCH_MEMORY_FLOWS, BENCH_RULE_FLOWS, BENCH_SKIP_MEMORY=1,
 *    BENCH_SKIP_STORAGE=1, BENCH_SKIP_V1_K10=1, BENCH_SKIP_V2ALPHA_K10=1, BENCH_SKIP_SCALING=1,
 *    BENCH_PREVIEW_LOGS_PER_EXPERIMENT, BENCH_BASELINE, BENCH_LOG_LEVEL, BENCH_PROFILE=evaluator,
 *    TEST_NATS_URL, TEST_POSTGRES_URL)
 */
import { ROUNDS, SKIP_MEMORY, SKIP_SCALING, SKIP_STORAGE, out } from './evaluator/config';
import { setUpExperiments } from './evaluator/experiments';
import { freshness } from './evaluator/freshness';
import { openHarness } from './evaluator/harness';
import { memory } from './evaluator/memory';
import { scaling } from './evaluator/scaling';
import { storage } from './evaluator/storage';
import { throughput } from './evaluator/throughput';

async function main() {
  const harness = await openHarness();
  const { summary, profiles } = harness;
  try {
    const experiments = await setUpExperiments(harness);
    await throughput(harness, experiments);
    if (!SKIP_SCALING) await scaling(harness, experiments);
    if (ROUNDS > 0) await freshness(harness, experiments);
    if (!SKIP_STORAGE) await storage(harness, experiments);
    if (!SKIP_MEMORY) await memory(harness, experiments);
  } finally {
    if (summary.length > 0) {
      const width = Math.max(...summary.map((l) => l.label.length));
      out('');
      out('SUMMARY (evaluator.bench.ts)');
      for (const line of summary) {
        out(
          `  ${line.label.padEnd(width)}  ${line.value}${line.target ? ` | target ${line.target}: ${line.met ? 'met' : 'NOT met'}` : ''}`,
        );
      }
      if (profiles.length > 0) {
        out('  CPU profiles of the evaluator (BENCH_PROFILE=evaluator), share of sampled time:');
        for (const line of profiles) out(`  ${line.label.padEnd(width)}  ${line.value}`);
      }
      const missed = summary.filter((l) => l.target && !l.met).length;
      out(
        `  ${summary.filter((l) => l.target).length - missed} of ${summary.filter((l) => l.target).length} targets met${SKIP_MEMORY ? '; memory scenario skipped (BENCH_SKIP_MEMORY=1)' : ''}${SKIP_STORAGE ? '; storage scenario skipped (BENCH_SKIP_STORAGE=1)' : ''}`,
      );
    }
    await harness.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
