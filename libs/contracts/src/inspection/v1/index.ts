import type { ContractPackage } from '../../packages';

/**
 * `inspection.v1`: inspection rules (Ironic-compatible, so field names stay snake_case as in
 * Ironic's API) and the inspection events the rule engine consumes from JetStream.
 */
export const INSPECTION_V1: ContractPackage = { name: 'inspection.v1', version: '1.2.0' };

export const INSPECTION_PHASES = ['early', 'preprocess', 'main'] as const;
export type InspectionPhase = (typeof INSPECTION_PHASES)[number];

export const LOOP_MULTIPLE = ['any', 'all', 'first', 'last'] as const;
export type LoopMultiple = (typeof LOOP_MULTIPLE)[number];

/** A condition or an action: `{ op, args, loop, multiple }` (a condition's op may start with `!`). */
export interface InspectionRuleStep {
  op: string;
  args?: unknown[] | Record<string, unknown>;
  /** A list, or a string that is exactly one `{…}` interpolation yielding a list. */
  loop?: unknown[] | string;
  multiple?: LoopMultiple;
}

/**
 * A rule as every read returns it; a sensitive rule's conditions and actions are null, and a
 * list without `detail=true` leaves them out.
 */
export interface InspectionRule {
  uuid: string;
  created_at: string;
  updated_at: string | null;
  priority: number;
  description: string | null;
  scope: string | null;
  sensitive: boolean;
  phase: InspectionPhase;
  conditions?: InspectionRuleStep[] | null;
  actions?: InspectionRuleStep[] | null;
  built_in: boolean;
}

/**
 * Who asks for a rule change: the principal the gateway authenticated (its key's name or JWT
 * subject). Set by the gateway on the NATS request, never taken from an HTTP body; the
 * service records it (with the request id) for every rule it creates, changes or deletes.
 */
export interface RuleChangeActor {
  actor?: string;
}

/**
 * Body of a create (and each item of an import); only `actions` is required. Over NATS a
 * create also carries the `actor` (an import's items do not).
 */
export interface CreateInspectionRuleRequest extends RuleChangeActor {
  uuid?: string;
  priority?: number;
  description?: string | null;
  scope?: string | null;
  sensitive?: boolean;
  phase?: InspectionPhase;
  conditions?: InspectionRuleStep[];
  actions: InspectionRuleStep[];
}

/**
 * What a list can be sorted by (Ironic's `sort_key`): `id` is creation order (built-in rules
 * first), the others are rule fields, ties in creation order.
 */
export const INSPECTION_RULE_SORT_KEYS = [
  'id',
  'uuid',
  'priority',
  'phase',
  'description',
  'sensitive',
  'scope',
  'built_in',
  'created_at',
  'updated_at',
] as const;
export type InspectionRuleSortKey = (typeof INSPECTION_RULE_SORT_KEYS)[number];

export interface ListInspectionRulesRequest {
  detail?: boolean;
  scope?: string;
  phase?: InspectionPhase;
  /** Since 1.2.0: at most this many rules (Ironic's `limit`, 1 to 1000); all when absent. */
  limit?: number;
  /** Since 1.2.0: the rules after this one in the list's order (Ironic's `marker`, a rule uuid). */
  marker?: string;
  /** Since 1.2.0: the order (Ironic's `sort_key`), `id` (creation order) by default. */
  sort_key?: InspectionRuleSortKey;
  /** Since 1.2.0: `asc` by default. */
  sort_dir?: 'asc' | 'desc';
}

/** A delete: the rule and who asks. */
export interface DeleteInspectionRuleRequest extends RuleChangeActor {
  uuid: string;
}

/** Deleting every stored rule: who asks. */
export type DeleteAllInspectionRulesRequest = RuleChangeActor;

export interface ListInspectionRulesResponse {
  inspection_rules: InspectionRule[];
}

/** One RFC 6902 operation. */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

export interface PatchInspectionRuleRequest extends RuleChangeActor {
  uuid: string;
  patch: JsonPatchOperation[];
}

/** Import: either already-parsed rules (JSON body) or YAML text; all or nothing. */
export interface ImportInspectionRulesRequest extends RuleChangeActor {
  rules?: unknown;
  yaml?: string;
}

export interface ImportInspectionRulesResponse {
  inspection_rules: InspectionRule[];
}

/** The data a phase's rules see. In `early` there is no node, ports or port groups. */
export interface InspectionData {
  node?: Record<string, unknown> | null;
  ports?: Record<string, unknown>[];
  port_groups?: Record<string, unknown>[];
  inventory?: Record<string, unknown>;
  plugin_data?: Record<string, unknown>;
  scope?: string | null;
}

export interface EvaluateInspectionRulesRequest extends InspectionData {
  phase?: InspectionPhase;
}

export interface MatchedInspectionRule {
  uuid: string;
  description: string | null;
}

/** What running a phase's rules does. Values written by sensitive rules read `***` over HTTP. */
export interface EvaluateInspectionRulesResponse {
  matched_rules: MatchedInspectionRule[];
  node_patch: JsonPatchOperation[];
  /** Per port uuid (or MAC when the port has no uuid). */
  port_patches: Record<string, JsonPatchOperation[]>;
  plugin_data: Record<string, unknown>;
  /** Why inspection fails (a `fail` action or a rule error); null when it does not. */
  failure: string | null;
}

/** Published by inspection agents on `inspection.v1.{phase}` with `Nats-Msg-Id` = id. */
export interface InspectionEvent extends InspectionData {
  id: string;
}

/** Published once per event id on `inspection.v1.results` with `Nats-Msg-Id` = `result:<id>`. */
export interface InspectionResult {
  eventId: string;
  phase: InspectionPhase;
  node_uuid: string | null;
  matched_rules: MatchedInspectionRule[];
  node_patch: JsonPatchOperation[];
  port_patches: Record<string, JsonPatchOperation[]>;
  plugin_data: Record<string, unknown>;
  failed?: string;
}

export function inspectionEventSubject(phase: InspectionPhase): string {
  return `inspection.v1.${phase}`;
}

export const INSPECTION_RESULTS_SUBJECT = 'inspection.v1.results';

/** Request/reply subjects of the rules API (the gateway's backend calls). */
export const INSPECTION_RULES_SUBJECTS = {
  create: 'inspection.v1.rules.create',
  get: 'inspection.v1.rules.get',
  list: 'inspection.v1.rules.list',
  patch: 'inspection.v1.rules.patch',
  delete: 'inspection.v1.rules.delete',
  deleteAll: 'inspection.v1.rules.delete_all',
  evaluate: 'inspection.v1.rules.evaluate',
  import: 'inspection.v1.rules.import',
} as const;
