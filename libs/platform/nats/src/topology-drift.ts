import type { ConsumerConfig } from 'nats';

export interface FieldDrift {
  field: string;
  actual: unknown;
  declared: unknown;
}

const NANOS_FIELDS = new Set(['max_age', 'duplicate_window', 'ack_wait']);
/** nats-server 2.9 refuses, or ignores, an in-place update of these. */
export const RECREATED_CONSUMER_FIELDS = new Set([
  'deliver_policy',
  'ack_policy',
  'filter_subject',
  'deliver_subject',
  'opt_start_seq',
  'opt_start_time',
]);

const normalized = (value: unknown) => (value === undefined || value === null ? '' : value);

export function configDrift(
  declared: object,
  actual: object,
  only?: readonly string[],
): FieldDrift[] {
  const have = actual as Record<string, unknown>;
  const drift: FieldDrift[] = [];
  for (const [field, value] of Object.entries(declared)) {
    if (value === undefined || (only && !only.includes(field))) continue;
    if (JSON.stringify(normalized(have[field])) !== JSON.stringify(normalized(value)))
      drift.push({ field, actual: have[field], declared: value });
  }
  return drift;
}

export function pushDrift(actual: Partial<ConsumerConfig>): FieldDrift[] {
  return actual.deliver_subject
    ? [{ field: 'deliver_subject', actual: actual.deliver_subject, declared: '(pull)' }]
    : [];
}

function shown(field: string, value: unknown): string {
  if (value === undefined || value === null || value === '') return '(none)';
  if (NANOS_FIELDS.has(field) && typeof value === 'number') return `${value / 1e6} ms`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function describeDrift(drift: readonly FieldDrift[]): string {
  return drift
    .map(
      ({ field, actual, declared }) =>
        `${field} ${shown(field, actual)} → ${shown(field, declared)}`,
    )
    .join(', ');
}
