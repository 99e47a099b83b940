import type {
  PreviewConfigurationReport,
  PreviewFlow,
  PreviewReadiness,
  SemanticDiff,
} from '@rollout/contracts';
import { ResourceDiff, hasChanges } from './diff';

/** The text, Markdown and JSON renderers all read it; `--json` is plan-output.schema.json. */
export const PLAN_SCHEMA_VERSION = 1;

export const EXIT = {
  OK: 0,
  ERROR: 1,
  CHANGES: 2,
  THRESHOLD: 3,
  /** The project requires a review: submitted for approval, not made. */
  SUBMITTED_FOR_REVIEW: 4,
} as const;

export interface ImpactGroup {
  /** `tcp/22`, `icmp`; or a source prefix `198.51.100.0/24`, `2001:db8:0:1::/64`. */
  key: string;
  allowToDeny: number;
  denyToAllow: number;
  flows: number;
}

export interface Impact {
  source: 'backtest' | 'preview';
  /** To read its result again. */
  operation?: string;
  experimentEtag?: string;
  livePolicyEtag?: string;
  window: {
    startTime?: string;
    endTime?: string;
    summary: string;
  };
  evaluated: number;
  changed: number;
  allowToDeny: number;
  denyToAllow: number;
  changedShare: number;
  /** Undefined when the report does not say. */
  changedFlows?: number;
  /** Less than `changed` when the list is cut. */
  listedFlows: number;
  listedChangedEvents: number;
  /** Every changed event is in a listed flow: the flow counts and groups are exact. */
  flowsComplete: boolean;
  newlyDeniedFlows: number;
  newlyAllowedFlows: number;
  byPort: ImpactGroup[];
  bySourcePrefix: ImpactGroup[];
}

export interface GateVerdict {
  kind: string;
  holds: boolean;
  description: string;
}

export interface Readiness {
  ready: boolean;
  gates: GateVerdict[];
  reportEtag?: string;
}

export interface Thresholds {
  maxChangedShare?: number;
  maxNewlyDeniedFlows?: number;
  maxNewlyAllowedFlows?: number;
}

export interface ThresholdResult {
  name: 'maxChangedShare' | 'maxNewlyDeniedFlows' | 'maxNewlyAllowedFlows';
  source: Impact['source'];
  limit: number;
  value: number;
  exceeded: boolean;
  lowerBound: boolean;
}

export interface PlanModel {
  schemaVersion: typeof PLAN_SCHEMA_VERSION;
  command: 'plan' | 'drift' | 'rollback';
  policy: string;
  livePolicyEtag: string;
  target: { file?: string; revision?: string };
  changes: boolean;
  diff: ResourceDiff;
  semantic?: { nowDenied: string[]; nowAllowed: string[]; truncated: boolean };
  experiment?: { name: string; etag: string };
  impact: Impact[];
  readiness?: Readiness;
  thresholds: ThresholdResult[];
  planFile?: string;
  exitCode: number;
}

const ipv6Groups = (ip: string): string[] => {
  const [head, tail] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => g.replace(/^0+(?=.)/, '').toLowerCase());
};

export function sourcePrefix(ip: string): string {
  if (/^\d+\.\d+\.\d+\.\d+$/.test(ip)) return `${ip.split('.').slice(0, 3).join('.')}.0/24`;
  if (ip.includes(':') && !ip.includes('.')) return `${ipv6Groups(ip).slice(0, 4).join(':')}::/64`;
  return ip;
}

const portKey = (flow: PreviewFlow) =>
  flow.destPort === undefined ? flow.protocol : `${flow.protocol}/${flow.destPort}`;

function groupFlows(flows: PreviewFlow[], keyOf: (flow: PreviewFlow) => string): ImpactGroup[] {
  const groups = new Map<string, ImpactGroup>();
  for (const flow of flows) {
    const key = keyOf(flow);
    const group = groups.get(key) ?? { key, allowToDeny: 0, denyToAllow: 0, flows: 0 };
    if (flow.transition === 'ALLOW_TO_DENY') group.allowToDeny += flow.count;
    else group.denyToAllow += flow.count;
    group.flows++;
    groups.set(key, group);
  }
  return [...groups.values()].sort(
    (a, b) =>
      b.allowToDeny + b.denyToAllow - (a.allowToDeny + a.denyToAllow) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}

export function impactOf(
  source: Impact['source'],
  configuration: PreviewConfigurationReport | undefined,
  flows: PreviewFlow[],
  window: Impact['window'],
  operation?: string,
): Impact {
  const c = configuration;
  const evaluated = c?.evaluated ?? 0;
  const changed = c?.changed ?? 0;
  const listedChangedEvents = flows.reduce((sum, flow) => sum + flow.count, 0);
  return {
    source,
    ...(operation ? { operation } : {}),
    ...(c ? { experimentEtag: c.experimentEtag, livePolicyEtag: c.livePolicyEtag } : {}),
    window,
    evaluated,
    changed,
    allowToDeny: c?.allowToDeny ?? 0,
    denyToAllow: c?.denyToAllow ?? 0,
    changedShare: evaluated ? changed / evaluated : 0,
    ...(c?.flows !== undefined ? { changedFlows: c.flows } : {}),
    listedFlows: flows.length,
    listedChangedEvents,
    flowsComplete: listedChangedEvents === changed,
    // A cut list may hold no flow of a transition its counts have: there is one at least.
    newlyDeniedFlows: Math.max(
      flows.filter((f) => f.transition === 'ALLOW_TO_DENY').length,
      c?.allowToDeny ? 1 : 0,
    ),
    newlyAllowedFlows: Math.max(
      flows.filter((f) => f.transition === 'DENY_TO_ALLOW').length,
      c?.denyToAllow ? 1 : 0,
    ),
    byPort: groupFlows(flows, portKey),
    bySourcePrefix: groupFlows(flows, (flow) => sourcePrefix(flow.srcIp)),
  };
}

export function readinessOf(
  readiness: PreviewReadiness | undefined,
  reportEtag?: string,
): Readiness | undefined {
  if (!readiness) return undefined;
  return {
    ready: readiness.ready,
    gates: readiness.gates.map((g) => ({
      kind: g.kind,
      holds: g.holds,
      description: g.description,
    })),
    ...(reportEtag ? { reportEtag } : {}),
  };
}

export function semanticOf(semantic: SemanticDiff | undefined): PlanModel['semantic'] {
  if (!semantic) return undefined;
  return {
    nowDenied: semantic.nowDenied.map((c) => c.summary),
    nowAllowed: semantic.nowAllowed.map((c) => c.summary),
    truncated: semantic.truncated,
  };
}

export function checkThresholds(impacts: Impact[], thresholds: Thresholds): ThresholdResult[] {
  const results: ThresholdResult[] = [];
  for (const impact of impacts) {
    const check = (
      name: ThresholdResult['name'],
      limit: number | undefined,
      value: number,
      lowerBound: boolean,
    ) => {
      if (limit === undefined) return;
      results.push({
        name,
        source: impact.source,
        limit,
        value,
        exceeded: value > limit,
        lowerBound,
      });
    };
    check('maxChangedShare', thresholds.maxChangedShare, impact.changedShare, false);
    // A cut list counts fewer flows than there are: a bound exceeded is exceeded all the same.
    const cut = !impact.flowsComplete;
    check('maxNewlyDeniedFlows', thresholds.maxNewlyDeniedFlows, impact.newlyDeniedFlows, cut);
    check('maxNewlyAllowedFlows', thresholds.maxNewlyAllowedFlows, impact.newlyAllowedFlows, cut);
  }
  return results;
}

/** Errors (1) are decided where they happen. */
export function exitCodeOf(model: Pick<PlanModel, 'diff' | 'thresholds'>): number {
  if (!hasChanges(model.diff)) return EXIT.OK;
  return model.thresholds.some((t) => t.exceeded) ? EXIT.THRESHOLD : EXIT.CHANGES;
}
