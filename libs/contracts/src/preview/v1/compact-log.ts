import type { PREVIEW_LOG_PREFIX } from '../../experiment/v1/resources';
import type { TrafficProtocol } from '../../traffic/v1';
import type {
  PolicyPreviewLogBatch,
  PreviewConnection,
  PreviewLogExperiment,
  PreviewVerdict,
} from './logs';

/**
 * `a` (allow) or `d` (deny), then the deciding rule's priority, none for the implied rule; in
 * capitals when an experiment's action differs from live: `a100`, `d`, `D10`.
 * @pattern ^[adAD](0|[1-9][0-9]*)?$
 */
export type PreviewVerdictToken = string;

/** The live policy's verdict, then one per `experiments` entry, in that order. */
export type PreviewLogOutcome = PreviewVerdictToken[];

/**
 * `[outcome index, trafficEventId, eventTime, I|E, srcIp, destIp, protocol, srcPort, destPort,
 * targetTags, srcSecureTags]`; absent trailing elements are left out, absent inner ones null.
 */
export type CompactPreviewLogEvent = [
  number,
  string,
  string,
  'I' | 'E',
  string,
  string,
  TrafficProtocol,
  (number | null)?,
  (number | null)?,
  (string[] | null)?,
  string[]?,
];

/** Since 1.10.0: PolicyPreviewLogBatch in a quarter of the bytes, each outcome listed once. */
export interface CompactPolicyPreviewLog {
  /** So messages grep apart from other logs. */
  logPrefix: typeof PREVIEW_LOG_PREFIX;
  /** The live policy's resource name. */
  firewallPolicy: string;
  livePolicyEtag: string;
  /** Each outcome's tokens after the first follow this order. */
  experiments: PreviewLogExperiment[];
  /** A record's id is `{idPrefix}.{trafficEventId}`, as in PolicyPreviewLogRecord. */
  idPrefix: string;
  /** In order of first appearance. */
  outcomes: PreviewLogOutcome[];
  /** In the order evaluated. */
  events: CompactPreviewLogEvent[];
}

/** A fifth token, so consumers telling the logs apart by length see a new shape. */
export const COMPACT_POLICY_LOG_SUFFIX = '._policy.compact';

export const compactPolicyPreviewLogSubject = (
  project: string,
  location: string,
  firewallPolicy: string,
) => `preview.v1.logs.${project}.${location}.${firewallPolicy}${COMPACT_POLICY_LOG_SUFFIX}`;

export const compactLogSubjectOf = (policyLogSubject: string) =>
  `${policyLogSubject}${COMPACT_POLICY_LOG_SUFFIX}`;

const TOKEN = /^([adAD])(0|[1-9][0-9]*)?$/;

export function parsePreviewVerdictToken(token: string): PreviewVerdict & { changed: boolean } {
  const match = TOKEN.exec(token);
  if (!match) throw new Error(`not a preview verdict token: ${JSON.stringify(token)}`);
  const letter = match[1];
  return {
    action: letter === 'a' || letter === 'A' ? 'allow' : 'deny',
    rulePriority: match[2] === undefined ? null : Number(match[2]),
    implied: match[2] === undefined,
    changed: letter === 'A' || letter === 'D',
  };
}

export function previewVerdictToken(verdict: PreviewVerdict, changed = false): string {
  const letter = verdict.action === 'allow' ? (changed ? 'A' : 'a') : changed ? 'D' : 'd';
  return verdict.rulePriority === null ? letter : `${letter}${verdict.rulePriority}`;
}

const plainVerdict = ({ action, rulePriority, implied }: PreviewVerdict): PreviewVerdict => ({
  action,
  rulePriority,
  implied,
});

export function compactRowConnection(row: CompactPreviewLogEvent): PreviewConnection {
  const connection: PreviewConnection = {
    direction: row[3] === 'I' ? 'INGRESS' : 'EGRESS',
    srcIp: row[4],
    destIp: row[5],
    protocol: row[6],
  };
  if (row[7] !== undefined && row[7] !== null) connection.srcPort = row[7];
  if (row[8] !== undefined && row[8] !== null) connection.destPort = row[8];
  if (row[9] !== undefined && row[9] !== null) connection.targetTags = row[9];
  if (row[10] !== undefined) connection.srcSecureTags = row[10];
  return connection;
}

export function expandCompactPolicyPreviewLog(log: CompactPolicyPreviewLog): PolicyPreviewLogBatch {
  const outcomes = log.outcomes.map((tokens, i) => {
    if (tokens.length !== log.experiments.length + 1)
      throw new Error(
        `outcome ${i} has ${tokens.length} verdicts for ${log.experiments.length} experiments`,
      );
    const [live, ...experiments] = tokens.map(parsePreviewVerdictToken);
    return {
      liveResult: plainVerdict(live),
      experimentResults: experiments.map((v) => ({ ...plainVerdict(v), changed: v.changed })),
    };
  });
  return {
    logPrefix: log.logPrefix,
    firewallPolicy: log.firewallPolicy,
    livePolicyEtag: log.livePolicyEtag,
    experiments: log.experiments.map((e) => ({
      experiment: e.experiment,
      experimentEtag: e.experimentEtag,
    })),
    events: log.events.map((row) => {
      const outcome = outcomes[row[0]];
      if (!outcome) throw new Error(`event ${JSON.stringify(row[1])} has no outcome ${row[0]}`);
      return {
        id: `${log.idPrefix}.${row[1]}`,
        trafficEventId: row[1],
        eventTime: row[2],
        connection: compactRowConnection(row),
        liveResult: { ...outcome.liveResult },
        experimentResults: outcome.experimentResults.map((r) => ({ ...r })),
      };
    }),
  };
}
