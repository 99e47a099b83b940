/** A part of a whole in words and as a percentage: "806 of 6,058 events, 13%". */
export function shareText(part: number, total: number, unit: string): string {
  const count = (value: number) => value.toLocaleString('en-US');
  return `${count(part)} of ${count(total)} ${unit}, ${percent(part, total)}`;
}

/** Whole percent; a share that is not zero never reads "0%" (nor one short of all "100%"). */
export function percent(part: number, total: number): string {
  if (total <= 0 || part <= 0) return '0%';
  if (part >= total) return '100%';
  const value = (part / total) * 100;
  if (value < 1) return '<1%';
  if (value > 99) return '>99%';
  return `${Math.round(value)}%`;
}
