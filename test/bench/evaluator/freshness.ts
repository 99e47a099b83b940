/**
 * Scenario 2: after a state change returns (startPreview, an update, stopPreview, a live policy
 * update, a commit), how late traffic is still evaluated against the old state, read from the
 * probe events' records on PREVIEW_LOGS.
 */
import {
  CommitRequest,
  CreateExperimentRequest,
  EXPERIMENT_SUBJECTS,
  FirewallPolicy,
  FirewallPolicyExperiment,
  Operation,
  PREVIEW_LOGS_STREAM,
  TrafficEvent,
  UpdateExperimentRequest,
  UpdatePolicyRequest,
  previewLogSubject,
} from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { DeliverPolicy } from 'nats';
import { LoggedVerdict, VerdictsByExperiment } from '../preview-log-reader';
import { Experiments } from './experiments';
import { Harness } from './harness';
import { PROBE_EVERY_MS, PROBE_FOR_MS, ROUNDS, TARGETS, out, percentile, sleep } from './config';
import { processStats } from './processes';

export async function freshness(h: Harness, x: Experiments) {
  const {
    ns,
    schemas,
    js,
    jsm,
    ask,
    note,
    startEvaluator,
    running,
    stopEvaluators,
    outboxesEmpty,
    stream,
    subject,
    purgeTraffic,
    consumerSettled,
  } = h;
  const { rules, policyName, experimentName, active, start, stopPreview, ensureActive } = x;
  await purgeTraffic();
  await ensureActive(['flip', 'lockdown']);
  if (active.has('noop')) await stopPreview('noop');
  await startEvaluator(schemas.preview, 'freshness');
  const freshness: Record<string, number[]> = {
    startPreview: [],
    update: [],
    stopPreview: [],
    'live update': [],
    commit: [],
  };
  // The per-policy log's subjects (…edge._policy.compact, and …edge with PREVIEW_LOGS_POLICY_JSON)
  // and the deprecated per-experiment ones (…edge.{experiment}).
  const logsPrefix = ns.subject(previewLogSubject('bench', 'global', 'edge', ''));
  const policyLogs = logsPrefix.slice(0, -1);
  const logsStream = ns.stream(PREVIEW_LOGS_STREAM);
  const logsLastSeq = async () => (await jsm.streams.info(logsStream)).state.last_seq;
  /**
   * The verdicts logged on PREVIEW_LOGS after stream sequence `after`, by experiment id, read
   * with an ordered consumer up to the stream's last message now: the compact per-policy log's
   * when the evaluator publishes it (an older baseline's PolicyPreviewLogBatch log, else the
   * per-experiment records, otherwise).
   */
  const logsAfter = async (after: number): Promise<Map<string, LoggedVerdict[]>> => {
    const byExperiment = new VerdictsByExperiment();
    const until = await logsLastSeq();
    if (until <= after) return byExperiment.result();
    const consumer = await js.consumers.get(logsStream, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: after + 1,
    });
    const messages = await consumer.consume({ max_messages: 1000 });
    const timer = setTimeout(() => messages.stop(), 30_000);
    try {
      for await (const message of messages) {
        if (message.subject === policyLogs || message.subject.startsWith(logsPrefix))
          byExperiment.add(message.subject, () => message.json<unknown>());
        if (message.seq >= until || message.info.pending === 0) break;
      }
    } finally {
      clearTimeout(timer);
      messages.stop();
    }
    return byExperiment.result();
  };
  /**
   * The records of the probes once they are all on PREVIEW_LOGS: flip is ACTIVE throughout, so
   * every probe has a flip record once its batch's records were published.
   */
  const probeLogs = async (after: number, sent: { id: string }[], schema: string) => {
    const deadline = performance.now() + 30_000;
    for (;;) {
      const logs = await logsAfter(after);
      const flip = new Set((logs.get('flip') ?? []).map((r) => r.trafficEventId));
      if (
        (sent.every((p) => flip.has(p.id)) && (await outboxesEmpty(schema))) ||
        performance.now() > deadline
      ) {
        if (performance.now() > deadline)
          out(
            `    (not every probe has its flip record on PREVIEW_LOGS after 30 s: ${sent.filter((p) => !flip.has(p.id)).length} of ${sent.length} missing)`,
          );
        return (id: string) => logs.get(id) ?? [];
      }
      await sleep(50);
    }
  };
  /** Publishes probes for a while after `t0`; returns each probe's id and when its publish was acknowledged. */
  const probe = async (t0: number, round: string) => {
    const sent: { id: string; at: number }[] = [];
    for (let i = 0; performance.now() - t0 < PROBE_FOR_MS; i++) {
      const event: TrafficEvent = {
        id: `probe-${round}-${i}`,
        time: new Date().toISOString(),
        direction: 'INGRESS',
        srcIp: '10.200.1.1',
        destIp: '192.168.0.1',
        protocol: 'tcp',
        destPort: 22,
      };
      const ack = await js.publish(subject, JSON.stringify(event), { msgID: event.id });
      sent.push({ id: event.id, at: performance.now() - t0 });
      await sleep(PROBE_EVERY_MS);
      if (i === 0 && ack.seq === 0) throw new Error('probe not stored');
    }
    const lastSeq = (await jsm.streams.info(stream)).state.last_seq;
    await eventually(() => consumerSettled(lastSeq).then((ok) => ok || undefined), {
      timeoutMs: 30_000,
      what: 'probes settled',
    });
    return sent;
  };
  /** The latest probe (ms after t0) still evaluated against the old state; 0 when none was. */
  const staleness = (sent: { id: string; at: number }[], isNew: (id: string) => boolean) =>
    sent.reduce((latest, p) => (isNew(p.id) ? latest : Math.max(latest, p.at)), 0);
  const eventIds = (records: LoggedVerdict[], keep: (r: LoggedVerdict) => boolean = () => true) =>
    new Set(records.filter(keep).map((r) => r.trafficEventId));
  for (let round = 0; round < ROUNDS; round++) {
    // startPreview: new records for lockdown (stopped first, outside the measure).
    await stopPreview('lockdown');
    await sleep(50);
    let after = await logsLastSeq();
    const started = await start('lockdown');
    let t0 = performance.now();
    let sent = await probe(t0, `${round}-start`);
    let logs = await probeLogs(after, sent, schemas.preview);
    let ids = eventIds(logs('lockdown'), (r) => r.experimentEtag === started.response?.etag);
    freshness.startPreview.push(staleness(sent, (id) => ids.has(id)));

    // An update of an ACTIVE experiment suspends it (AIP-236): its records stop.
    after = await logsLastSeq();
    await ask<Operation>(EXPERIMENT_SUBJECTS.updateExperiment, {
      experiment: { name: experimentName('lockdown'), annotations: { round: String(round) } },
      actor: 'bench',
    } satisfies UpdateExperimentRequest);
    active.delete('lockdown');
    t0 = performance.now();
    sent = await probe(t0, `${round}-update`);
    logs = await probeLogs(after, sent, schemas.preview);
    ids = eventIds(logs('lockdown'));
    freshness.update.push(staleness(sent, (id) => !ids.has(id)));

    await start('lockdown');
    await sleep(50);
    after = await logsLastSeq();
    await stopPreview('lockdown');
    t0 = performance.now();
    sent = await probe(t0, `${round}-stop`);
    logs = await probeLogs(after, sent, schemas.preview);
    ids = eventIds(logs('lockdown'));
    freshness.stopPreview.push(staleness(sent, (id) => !ids.has(id)));

    // A live policy update: flip's records carry the new live etag.
    after = await logsLastSeq();
    const updated = await ask<FirewallPolicy>(EXPERIMENT_SUBJECTS.updatePolicy, {
      firewallPolicy: { name: policyName, description: `round ${round}` },
      updateMask: 'description',
      actor: 'bench',
    } satisfies UpdatePolicyRequest);
    t0 = performance.now();
    let liveEtag = updated.etag;
    sent = await probe(t0, `${round}-live`);
    logs = await probeLogs(after, sent, schemas.preview);
    ids = eventIds(logs('flip'), (r) => r.livePolicyEtag === liveEtag);
    freshness['live update'].push(staleness(sent, (id) => ids.has(id)));

    // A commit: a fresh experiment (the live rules with one change) becomes the live policy.
    const candidate = `commit-${round}`;
    const created = await ask<Operation<FirewallPolicyExperiment>>(
      EXPERIMENT_SUBJECTS.createExperiment,
      {
        parent: policyName,
        experimentId: candidate,
        experiment: {
          firewallPolicy: {
            rules: rules.map((r, i) =>
              i === round ? { ...r, action: r.action === 'allow' ? 'deny' : 'allow' } : r,
            ),
          },
        },
        actor: 'bench',
      } satisfies CreateExperimentRequest,
    );
    after = await logsLastSeq();
    const committed = await ask<Operation<FirewallPolicy>>(EXPERIMENT_SUBJECTS.commit, {
      name: experimentName(candidate),
      etag: created.response?.etag,
      actor: 'bench',
    } satisfies CommitRequest);
    t0 = performance.now();
    liveEtag = committed.response?.etag as string;
    sent = await probe(t0, `${round}-commit`);
    logs = await probeLogs(after, sent, schemas.preview);
    ids = eventIds(logs('flip'), (r) => r.livePolicyEtag === liveEtag);
    freshness.commit.push(staleness(sent, (id) => ids.has(id)));
  }
  const all: number[] = [];
  out(
    `  state-change freshness (${ROUNDS} rounds each; latest probe still evaluated against the old state, ms after the command returned, read from PREVIEW_LOGS; probes every ~${PROBE_EVERY_MS} ms):`,
  );
  for (const [command, values] of Object.entries(freshness)) {
    const sorted = [...values].sort((a, b) => a - b);
    all.push(...values);
    out(
      `    ${command.padEnd(13)} p50 ${percentile(sorted, 50).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms, max ${sorted[sorted.length - 1].toFixed(0)} ms`,
    );
  }
  const p99 = percentile(
    all.sort((a, b) => a - b),
    99,
  );
  out(
    `    all commands  p99 ${p99.toFixed(0)} ms → target ≤ ${TARGETS.freshnessP99Ms} ms ${p99 <= TARGETS.freshnessP99Ms ? 'met' : 'NOT met'}`,
  );
  note({
    label: 'state-change freshness, all commands',
    value: `p99 ${p99.toFixed(0)} ms (${ROUNDS} rounds)`,
    target: `≤ ${TARGETS.freshnessP99Ms} ms`,
    met: p99 <= TARGETS.freshnessP99Ms,
  });
  out(
    `  evaluator peak RSS over the freshness rounds: ${processStats(running()).peakMb.toFixed(0)} MB`,
  );
  await stopEvaluators();
}
