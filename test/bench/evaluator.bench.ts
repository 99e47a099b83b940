/**
 * The evaluator end to end, each scenario on a fresh evaluator process run from the build output
 * with the Node options of its Kubernetes config (so a peak RSS, VmHWM, is that scenario's).
 * What each scenario prints and why: docs/performance.md; knobs (BENCH_*) and targets:
 * evaluator/config.ts. BENCH_BASELINE=<git revision> drains every throughput backlog again with
 * that revision's evaluator, for a same-run ratio.
 *
 *   npm run bench -- test/bench/evaluator.bench.ts
 */
import {
  ROUNDS,
  SKIP_MEMORY,
  SKIP_SCALING,
  SKIP_STORAGE,
  WINDOW_CONCURRENCY,
  out,
} from './evaluator/config';
import { setUpExperiments } from './evaluator/experiments';
import { freshness } from './evaluator/freshness';
import { openHarness } from './evaluator/harness';
import { memory } from './evaluator/memory';
import { scaling } from './evaluator/scaling';
import { storage } from './evaluator/storage';
import { throughput } from './evaluator/throughput';
import { windows } from './evaluator/windows';

async function main() {
  const harness = await openHarness();
  const { summary, profiles } = harness;
  try {
    const experiments = await setUpExperiments(harness);
    await throughput(harness, experiments);
    if (!SKIP_SCALING) await scaling(harness, experiments);
    if (WINDOW_CONCURRENCY.length > 0) await windows(harness, experiments);
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
