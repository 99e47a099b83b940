import type { ContractPackage } from '../../packages';

/** `inspection.v1`: Ironic-compatible, so field names stay snake_case as in Ironic's API. */
export const INSPECTION_V1: ContractPackage = { name: 'inspection.v1', version: '1.2.0' };

export const INSPECTION_PHASES = ['early', 'preprocess', 'main'] as const;
export type InspectionPhase = (typeof INSPECTION_PHASES)[number];

export const LOOP_MULTIPLE = ['any', 'all', 'first', 'last'] as const;
export type LoopMultiple = (typeof LOOP_MULTIPLE)[number];

/** A condition or an action; a condition's op may start with `!`. */
export interface InspectionRuleStep {
  op: string;
  args?: unknown[] | Record<string, unknown>;
  /** A list, or a string that is exactly one `{…}` interpolation yielding a list. */
  loop?: unknown[] | string;
  multiple?: LoopMultiple;
}

/** A sensitive rule's conditions and actions are null; a list leaves them out without `detail`. */
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

/** Set by the gateway on the NATS request, never taken from an HTTP body. */
export interface RuleChangeActor {
  actor?: string;
}

/** Also each item of an import, which carries no `actor`. */
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

/** Ironic's `sort_key`: `id` is creation order (built-in rules first), ties in creation order. */
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
  /** Since 1.2.0: 1 to 1000; all when absent. */
  limit?: number;
  /** Since 1.2.0: a rule uuid; the rules after it are listed. */
  marker?: string;
  /** Since 1.2.0: `id` by default. */
  sort_key?: InspectionRuleSortKey;
  /** Since 1.2.0: `asc` by default. */
  sort_dir?: 'asc' | 'desc';
}

export interface DeleteInspectionRuleRequest extends RuleChangeActor {
  uuid: string;
}

export type DeleteAllInspectionRulesRequest = RuleChangeActor;

export interface ListInspectionRulesResponse {
  inspection_rules: InspectionRule[];
}

/** RFC 6902. */
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

/** Parsed rules or YAML text; all or nothing. */
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

/** Values written by sensitive rules read `***` over HTTP. */
export interface EvaluateInspectionRulesResponse {
  matched_rules: MatchedInspectionRule[];
  node_patch: JsonPatchOperation[];
  /** Per port uuid (or MAC when the port has no uuid). */
  port_patches: Record<string, JsonPatchOperation[]>;
  plugin_data: Record<string, unknown>;
  /** A `fail` action or a rule error. */
  failure: string | null;
}

/** `Nats-Msg-Id` = id. */
export interface InspectionEvent extends InspectionData {
  id: string;
}

/** `Nats-Msg-Id` = `result:<id>`. */
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
