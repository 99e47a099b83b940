import type { ImportSummary } from './summary';

const number = (value: number) => value.toLocaleString('en-US');
const total = (counts: Record<string, number>) =>
  Object.values(counts).reduce((sum, count) => sum + count, 0);
const byReason = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([reason, count]) => `${reason} ${number(count)}`)
    .join(', ');

export const badLineCount = (summary: ImportSummary) => total(summary.bad);

export const eventsPerSecond = (summary: ImportSummary) =>
  summary.elapsedMs > 0
    ? Math.round(((summary.published + summary.duplicates) * 1000) / summary.elapsedMs)
    : 0;

export function formatSummary(summary: ImportSummary, inputs: number): string {
  const bad = badLineCount(summary);
  const read = `${number(summary.lines)} lines from ${inputs} input${inputs === 1 ? '' : 's'} in ${(summary.elapsedMs / 1000).toFixed(1)} s: `;
  const lines = [
    summary.dryRun
      ? `${read}dry run, nothing published: ${number(total(summary.routed))} events would be published`
      : `${read}${number(summary.published)} events published, ${number(summary.duplicates)} already in the stream (${number(eventsPerSecond(summary))} events/s)`,
  ];
  if (summary.dryRun || Object.keys(summary.routed).length > 1)
    lines.push(`  by policy: ${byReason(summary.routed) || 'none'}`);
  if (summary.alreadyImported > 0)
    lines.push(
      `  not read again: ${number(summary.alreadyImported)} lines an earlier import published (positions)`,
    );
  if (total(summary.skipped) > 0) lines.push(`  skipped: ${byReason(summary.skipped)}`);
  if (bad > 0) {
    lines.push(`  bad lines: ${number(bad)} (${byReason(summary.bad)})`);
    for (const { input, line, reason, message } of summary.badLines)
      lines.push(`    ${input}:${line}: ${reason}: ${message}`);
    if (summary.badLines.length < bad)
      lines.push(`    … and ${number(bad - summary.badLines.length)} more`);
  }
  return lines.join('\n');
}

export function formatProgress(
  summary: ImportSummary,
  totalBytes: number | undefined,
  width = 30,
): string {
  const events = `${number(summary.published + summary.duplicates)} events, ${number(eventsPerSecond(summary))} events/s`;
  if (!totalBytes) return events;
  const fraction = Math.min(1, summary.bytesRead / totalBytes);
  const filled = Math.round(fraction * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%  ${events}`;
}
