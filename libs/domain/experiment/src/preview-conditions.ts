import {
  MAX_READINESS_GATES,
  PreviewBreaker,
  PreviewStopAfter,
  ReadinessGate,
  StatusError,
  durationSeconds,
} from '@rollout/contracts';
import { isIpRange } from '@rollout/domain/firewall';

/** experiment.v1 1.4.0. */
export interface PreviewConditions {
  readinessGates?: ReadinessGate[];
  stopAfter?: PreviewStopAfter;
  breaker?: PreviewBreaker;
}

export const PREVIEW_CONDITION_FIELDS = ['readinessGates', 'stopAfter', 'breaker'] as const;
export type PreviewConditionField = (typeof PREVIEW_CONDITION_FIELDS)[number];

type Violation = { field: string; description: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown, min: number) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min;
const isShare = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1;
const DURATION = 'a whole number of s, m, h or d, above zero ("86400s", "90m", "24h", "7d")';

const GATE_CHECKS: Record<keyof ReadinessGate, (value: unknown) => string | undefined> = {
  minPreviewDuration: (v) => (durationSeconds(v) ? undefined : `must be ${DURATION}`),
  minEvaluated: (v) => (isCount(v, 1) ? undefined : 'must be a whole number of events, at least 1'),
  maxAllowToDenyShare: (v) =>
    isShare(v) ? undefined : 'must be a share between 0 and 1 (0.001 is 0.1%)',
  noDenyToAllowFrom: (v) =>
    typeof v === 'string' && v.includes('/') && isIpRange(v)
      ? undefined
      : 'must be a CIDR range ("0.0.0.0/0", "10.0.0.0/8", "::/0")',
  maxCompletenessLoss: (v) =>
    isCount(v, 0) ? undefined : 'must be a whole number of messages, 0 or more',
};
const GATE_KINDS = Object.keys(GATE_CHECKS) as (keyof ReadinessGate)[];

function gateViolations(input: unknown, field: string): Violation[] {
  if (!Array.isArray(input)) return [{ field, description: 'must be a list of gates' }];
  const violations: Violation[] = [];
  if (input.length > MAX_READINESS_GATES)
    violations.push({ field, description: `at most ${MAX_READINESS_GATES} gates` });
  input.slice(0, MAX_READINESS_GATES).forEach((gate, i) => {
    const at = `${field}[${i}]`;
    if (!isObject(gate))
      return void violations.push({
        field: at,
        description: `must be an object with one of ${GATE_KINDS.join(', ')}`,
      });
    const keys = Object.keys(gate);
    const unknown = keys.filter((k) => !GATE_KINDS.includes(k as keyof ReadinessGate));
    for (const k of unknown)
      violations.push({
        field: `${at}.${k.slice(0, 80)}`,
        description: `not a gate: use one of ${GATE_KINDS.join(', ')}`,
      });
    const kinds = keys.filter((k) =>
      GATE_KINDS.includes(k as keyof ReadinessGate),
    ) as (keyof ReadinessGate)[];
    if (kinds.length !== 1 && unknown.length === 0)
      violations.push({
        field: at,
        description: `a gate sets exactly one of ${GATE_KINDS.join(', ')}`,
      });
    for (const kind of kinds) {
      const problem = GATE_CHECKS[kind](gate[kind]);
      if (problem) violations.push({ field: `${at}.${kind}`, description: problem });
    }
  });
  return violations;
}

function stopAfterViolations(input: unknown, field: string): Violation[] {
  if (!isObject(input))
    return [{ field, description: 'must be an object with duration and/or evaluatedEvents' }];
  const violations: Violation[] = [];
  for (const k of Object.keys(input).filter((k) => k !== 'duration' && k !== 'evaluatedEvents'))
    violations.push({ field: `${field}.${k.slice(0, 80)}`, description: 'unknown field' });
  if (input.duration === undefined && input.evaluatedEvents === undefined)
    violations.push({ field, description: 'set duration, evaluatedEvents, or both' });
  if (input.duration !== undefined && !durationSeconds(input.duration))
    violations.push({ field: `${field}.duration`, description: `must be ${DURATION}` });
  if (input.evaluatedEvents !== undefined && !isCount(input.evaluatedEvents, 1))
    violations.push({
      field: `${field}.evaluatedEvents`,
      description: 'must be a whole number of events, at least 1',
    });
  return violations;
}

function breakerViolations(input: unknown, field: string): Violation[] {
  if (!isObject(input))
    return [{ field, description: 'must be an object with maxAllowToDenyShare' }];
  const violations: Violation[] = [];
  for (const k of Object.keys(input).filter(
    (k) => k !== 'maxAllowToDenyShare' && k !== 'minEvaluated',
  ))
    violations.push({ field: `${field}.${k.slice(0, 80)}`, description: 'unknown field' });
  if (!isShare(input.maxAllowToDenyShare))
    violations.push({
      field: `${field}.maxAllowToDenyShare`,
      description: 'required: a share between 0 and 1 (0.01 is 1%)',
    });
  if (input.minEvaluated !== undefined && !isCount(input.minEvaluated, 1))
    violations.push({
      field: `${field}.minEvaluated`,
      description: 'must be a whole number of events, at least 1',
    });
  return violations;
}

/** `current` keeps what an update leaves out; null or absent clears a field. */
export function parsePreviewConditions(
  body: Record<string, unknown>,
  fields: readonly PreviewConditionField[] = PREVIEW_CONDITION_FIELDS,
  current: PreviewConditions = {},
  prefix = 'experiment.',
): PreviewConditions {
  const check = {
    readinessGates: gateViolations,
    stopAfter: stopAfterViolations,
    breaker: breakerViolations,
  };
  const next: PreviewConditions = { ...current };
  const violations: Violation[] = [];
  for (const field of fields) {
    const value = body[field];
    if (
      value === undefined ||
      value === null ||
      (field === 'readinessGates' && Array.isArray(value) && value.length === 0)
    ) {
      delete next[field];
      continue;
    }
    const problems = check[field](value, `${prefix}${field}`);
    if (problems.length) violations.push(...problems);
    else (next as Record<string, unknown>)[field] = structuredClone(value);
  }
  if (violations.length)
    throw StatusError.invalidArgument(
      'The preview conditions are not valid.',
      violations.slice(0, 20),
    );
  return next;
}
