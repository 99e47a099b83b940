import type { PreviewFlow } from '@rollout/contracts';

/** A flow's connection in one line: "INGRESS 198.51.100.1 → 10.0.0.5 tcp:22". */
export const connectionText = (flow: Omit<PreviewFlow, 'samples'> | PreviewFlow) =>
  `${flow.direction} ${flow.srcIp} → ${flow.destIp} ${flow.protocol}${
    flow.destPort === undefined ? '' : `:${flow.destPort}`
  }`;

const utc = (value: string) => {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
};

/** Short enough not to wrap in a table cell (UTC; the full times are in its title). */
export function seenSpan(first: string, last: string): string {
  const [from, to] = [utc(first), utc(last)];
  if (!from || !to) return `${first}–${last}`;
  const day = (iso: string) => iso.slice(5, 10);
  if (from.slice(0, 10) === to.slice(0, 10)) {
    const start = from.slice(11, 19);
    const end = to.slice(11, 19);
    return start === end ? `${day(from)} ${start}` : `${day(from)} ${start}–${end}`;
  }
  return `${day(from)} ${from.slice(11, 16)}–${day(to)} ${to.slice(11, 16)}`;
}
