/** Sorted TRAFFIC sequences as inclusive runs of consecutive numbers, as the counted ranges hold them (a repeat folds in). */
export function sequenceRuns(sorted: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const seq of sorted) {
    const last = runs[runs.length - 1];
    if (last && seq === last[1] + 1) last[1] = seq;
    else if (!last || seq > last[1]) runs.push([seq, seq]);
  }
  return runs;
}
