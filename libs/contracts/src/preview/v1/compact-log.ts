import type { PREVIEW_LOG_PREFIX } from '../../experiment/v1/resources';
import type { TrafficProtocol } from '../../traffic/v1';
import type {
  PolicyPreviewLogBatch,
  PreviewConnection,
  PreviewLogExperiment,
  PreviewVerdict,
} from './logs';

/**
 * preview.v1's compact policy log (since 1.10.0): the same log as PolicyPreviewLogBatch, one
 * record per event with the live verdict and every ACTIVE experiment's, in about a quarter of the
 * bytes. A message names its configurations and the record ids' prefix once, lists each distinct
 * outcome (the verdicts of the live policy and of every experiment) once, and gives each event
 * as a row pointing at its outcome. `expandCompactPolicyPreviewLog` turns a message into the
 * PolicyPreviewLogBatch it stands for.
 */

/**
 * A verdict in one token: `a` (allow) or `d` (deny), then the deciding rule's priority, or no
 * digits when the implied rule decided (`rulePriority` null, `implied` true). An experiment's
 * token is in capitals (`A`, `D`) when its action differs from the live one's: `changed`.
 * `a100` (allowed by rule 100), `d` (the implied deny), `D10` (an experiment denies by rule 10
 * what the live policy allows).
 * @pattern ^[adAD](0|[1-9][0-9]*)?$
 */
export type PreviewVerdictToken = string;

/** Every configuration's verdict on an event: the live policy's first, then one per `experiments` entry, in that order. */
export type PreviewLogOutcome = PreviewVerdictToken[];

/**
 * One traffic event: `[outcome, trafficEventId, eventTime, direction, srcIp, destIp, protocol,
 * srcPort, destPort, targetTags, srcSecureTags]`, `outcome` the index of its outcome in the
 * message's `outcomes` and direction `I` for INGRESS, `E` for EGRESS. Trailing elements that are
 * absent are left out; an absent port or target tags followed by a present element is null.
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

/**
 * The payload of one message of a policy's compact preview log, on
 * `preview.v1.logs.{project}.{location}.{firewallPolicy}._policy.compact` (since 1.10.0; the
 * evaluator's default encoding of the policy's log).
 */
export interface CompactPolicyPreviewLog {
  /** Always `FirewallPolicyPreviewLog` (experiment.v1's PREVIEW_LOG_PREFIX): messages grep apart from other logs. */
  logPrefix: typeof PREVIEW_LOG_PREFIX;
  /** The live policy's resource name. */
  firewallPolicy: string;
  livePolicyEtag: string;
  /** The experiments ACTIVE when the events were evaluated; each outcome's tokens after the first follow this order. */
  experiments: PreviewLogExperiment[];
  /**
   * Each event's record id is `{idPrefix}.{trafficEventId}`: deterministic, derived from the live
   * policy version and the experiment versions of the message (the `id` of the same event's
   * PolicyPreviewLogRecord).
   */
  idPrefix: string;
  /** The distinct outcomes of the message's events, each once, in order of first appearance. */
  outcomes: PreviewLogOutcome[];
  /** One row per event, in the order evaluated. */
  events: CompactPreviewLogEvent[];
}

/** The fifth token after `preview.v1.logs.`: a consumer telling the log's shapes apart by length sees a new one. */
export const COMPACT_POLICY_LOG_SUFFIX = '._policy.compact';

/** Since 1.10.0: a live policy's compact preview log (the evaluator's default encoding of it). */
export const compactPolicyPreviewLogSubject = (
  project: string,
  location: string,
  firewallPolicy: string,
) => `preview.v1.logs.${project}.${location}.${firewallPolicy}${COMPACT_POLICY_LOG_SUFFIX}`;

/** The compact log's subject beside a policy's PolicyPreviewLogBatch subject (policyPreviewLogSubject). */
export const compactLogSubjectOf = (policyLogSubject: string) =>
  `${policyLogSubject}${COMPACT_POLICY_LOG_SUFFIX}`;

const TOKEN = /^([adAD])(0|[1-9][0-9]*)?$/;

/** A verdict token's verdict, and whether it is written as changed (in capitals). */
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

/** A verdict's token; `changed` (an experiment's verdict whose action differs from live) in capitals. */
export function previewVerdictToken(verdict: PreviewVerdict, changed = false): string {
  const letter = verdict.action === 'allow' ? (changed ? 'A' : 'a') : changed ? 'D' : 'd';
  return verdict.rulePriority === null ? letter : `${letter}${verdict.rulePriority}`;
}

const plainVerdict = ({ action, rulePriority, implied }: PreviewVerdict): PreviewVerdict => ({
  action,
  rulePriority,
  implied,
});

/** The connection a compact row holds, as PreviewConnection (optional fields only when present). */
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

/**
 * The PolicyPreviewLogBatch a compact message stands for: the same records, ids and verdicts
 * (`changed` read from the tokens' case). Throws on a row pointing at no outcome, or an outcome
 * whose tokens do not match the experiments.
 */
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
