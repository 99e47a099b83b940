import type { ConsumerConfig } from 'nats';

/**
 * How a stream, bucket or durable differs from its declaration: what provisioning repairs and
 * readiness names.
 */

/** A field whose value differs from the declared one. */
export interface FieldDrift {
  field: string;
  actual: unknown;
  declared: unknown;
}

const NANOS_FIELDS = new Set(['max_age', 'duplicate_window', 'ack_wait']);
/** What a consumer cannot have changed in place (nats-server 2.9 refuses, or ignores, the update). */
export const RECREATED_CONSUMER_FIELDS = new Set([
  'deliver_policy',
  'ack_policy',
  'filter_subject',
  'deliver_subject',
  'opt_start_seq',
  'opt_start_time',
]);

const normalized = (value: unknown) => (value === undefined || value === null ? '' : value);

/** The declared fields (`only` of them, when given) whose actual value differs, each with both values. */
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

/** A push consumer (it has a delivery subject) where a pull durable is declared. */
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

/** `field actual → declared`, for each drifted field, comma-separated. */
export function describeDrift(drift: readonly FieldDrift[]): string {
  return drift
    .map(
      ({ field, actual, declared }) =>
        `${field} ${shown(field, actual)} → ${shown(field, declared)}`,
    )
    .join(', ');
}
