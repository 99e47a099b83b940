/**
 * The live policy the evaluator bench evaluates against and its experiments: flip, lockdown and
 * noop, and for the K = 10 scenarios seven more; their previews, and their reports read back.
 */
import {
  CreateExperimentRequest,
  CreatePolicyRequest,
  DeleteRequest,
  EXPERIMENT_SUBJECTS,
  FirewallPolicy,
  FirewallPolicyExperiment,
  FirewallRule,
  ListPreviewFlowsRequest,
  ListPreviewFlowsResponse,
  Operation,
  PREVIEW_SUBJECTS,
  PreviewReport,
  PreviewRequest,
} from '@rollout/contracts';
import { REPORT_READS, errorText, int } from './config';
import { Harness } from './harness';
import { liveRules, prng } from './workload';

export async function setUpExperiments({ ask }: Harness) {
  const random = prng(42);
  const rules = liveRules(random);
  const parent = 'projects/bench/locations/global';
  const policyName = `${parent}/firewallPolicies/edge`;
  const experimentName = (id: string) => `${policyName}/experiments/${id}`;
  await ask<FirewallPolicy>(EXPERIMENT_SUBJECTS.createPolicy, {
    parent,
    firewallPolicyId: 'edge',
    firewallPolicy: { rules },
    actor: 'bench',
  } satisfies CreatePolicyRequest);
  /** The live rules with the action flipped of every rule whose index is `tenth` modulo 10. */
  const flipTenth = (tenth: number) =>
    rules.map((r, i) =>
      i % 10 === tenth
        ? { ...r, action: r.action === 'allow' ? ('deny' as const) : ('allow' as const) }
        : r,
    );
  const createExperiment = (id: string, experimentRules: FirewallRule[]) =>
    ask<Operation>(EXPERIMENT_SUBJECTS.createExperiment, {
      parent: policyName,
      experimentId: id,
      experiment: { firewallPolicy: { rules: experimentRules } },
      actor: 'bench',
    } satisfies CreateExperimentRequest);
  // 1: flips the action of every tenth rule; 2: a new rule in front; 3: the no-op (previews deleting the policy).
  const variants: Record<string, FirewallRule[]> = {
    flip: flipTenth(0),
    lockdown: [
      {
        priority: 1,
        direction: 'INGRESS',
        action: 'deny',
        match: {
          srcIpRanges: ['10.128.0.0/9'],
          layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '3306'] }],
        },
      },
      ...rules.slice(0, 999),
    ],
    noop: [],
  };
  for (const [id, experimentRules] of Object.entries(variants))
    await createExperiment(id, experimentRules);
  /** The experiments previewed now, as far as this bench has made them so. */
  const active = new Set<string>();
  const start = async (id: string) => {
    const operation = await ask<Operation<FirewallPolicyExperiment>>(
      EXPERIMENT_SUBJECTS.startPreview,
      { name: experimentName(id), actor: 'bench' } satisfies PreviewRequest,
    );
    active.add(id);
    return operation;
  };
  const stopPreview = async (id: string) => {
    const operation = await ask<Operation<FirewallPolicyExperiment>>(
      EXPERIMENT_SUBJECTS.stopPreview,
      { name: experimentName(id), actor: 'bench' } satisfies PreviewRequest,
    );
    active.delete(id);
    return operation;
  };
  const ensureActive = async (ids: readonly string[]) => {
    for (const id of ids) if (!active.has(id)) await start(id);
  };
  const ALL = ['flip', 'lockdown', 'noop'] as const;
  /**
   * With ALL, the ten experiments of the K = 10 scenarios: the seven more each flip another
   * tenth of the rules' actions. They exist only for those scenarios (a policy holds at most
   * ten experiments, and each freshness round creates one to commit).
   */
  const TENTHS = [1, 2, 3, 4, 5, 6, 7].map((tenth) => `tenth-${tenth}`);
  const TEN = [...ALL, ...TENTHS];
  let tenthsExist = false;
  const createTenths = async () => {
    if (tenthsExist) return;
    for (const [i, id] of TENTHS.entries()) await createExperiment(id, flipTenth(i + 1));
    tenthsExist = true;
  };
  const deleteTenths = async () => {
    if (!tenthsExist) return;
    for (const id of TENTHS) {
      if (active.has(id)) await stopPreview(id);
      await ask<Operation>(EXPERIMENT_SUBJECTS.deleteExperiment, {
        name: experimentName(id),
        actor: 'bench',
      } satisfies DeleteRequest);
    }
    tenthsExist = false;
  };

  /** The reports of `ids`, and whether each one's evaluated events add up to `expected`. */
  const reportsOf = async (ids: readonly string[], expected: (id: string) => number) => {
    // One at a time: ten reports at once can wait for the evaluator's pool longer than its 2 s connection timeout.
    const reports: PreviewReport[] = [];
    let slowestMs = 0;
    for (const id of ids) {
      // Every page: under churn an experiment lives through more live versions than one page lists.
      // Read REPORT_READS times, its best read kept: one read on a shared machine swings by half.
      let bestMs = Infinity;
      let report: PreviewReport | undefined;
      for (let read = 0; read < REPORT_READS; read++) {
        let page: PreviewReport | undefined;
        let readMs = 0;
        const configurations: PreviewReport['configurations'] = [];
        do {
          const askedAt = performance.now();
          page = await ask<PreviewReport>(PREVIEW_SUBJECTS.previewReport, {
            name: experimentName(id),
            pageSize: 50,
            pageToken: page?.nextPageToken,
          });
          readMs = Math.max(readMs, performance.now() - askedAt);
          configurations.push(...page.configurations);
        } while (page.nextPageToken);
        bestMs = Math.min(bestMs, readMs);
        report ??= { ...page, configurations };
      }
      slowestMs = Math.max(slowestMs, bestMs);
      reports.push(report as PreviewReport);
    }
    const totals = reports.map((r) => r.configurations.reduce((sum, c) => sum + c.evaluated, 0));
    const exact = totals.every((total, i) => total === expected(ids[i]));
    const sum = (r: PreviewReport, field: 'changed' | 'flows' | 'changedOutsideFlows') =>
      r.configurations.reduce((s, c) => s + (c[field] ?? 0), 0);
    const hasFlows = (r: PreviewReport) => r.configurations.some((c) => c.flows !== undefined);
    const describe = reports
      .map(
        (r, i) =>
          `${ids[i]}: ${int(totals[i])} evaluated${totals[i] === expected(ids[i]) ? '' : ` (expected ${int(expected(ids[i]))})`}, ${int(sum(r, 'changed'))} changed, flows kept ${hasFlows(r) ? int(sum(r, 'flows')) : 'n/a'}, changed outside flows ${hasFlows(r) ? int(sum(r, 'changedOutsideFlows')) : 'n/a'}`,
      )
      .join('; ')
      .concat(
        `; slowest report read ${slowestMs.toFixed(0)} ms${REPORT_READS > 1 ? ` (each report's best of ${REPORT_READS} reads)` : ''}`,
      );
    return {
      reports,
      exact,
      describe,
      flows: reports.map((r) => (hasFlows(r) ? sum(r, 'flows') : undefined)),
    };
  };
  /**
   * Every changed flow of an experiment through previewFlows (pages of 1,000): how many, and
   * whether their events add up to the report's changed events kept in flows.
   */
  const listFlows = async (id: string, report: PreviewReport): Promise<string> => {
    const inFlows = report.configurations.reduce(
      (sum, c) => sum + c.changed - (c.changedOutsideFlows ?? 0),
      0,
    );
    let flows = 0;
    let events = 0;
    let pageToken: string | undefined;
    try {
      for (let page = 0; page < 10_000; page++) {
        const response = await ask<ListPreviewFlowsResponse>(PREVIEW_SUBJECTS.previewFlows, {
          parent: experimentName(id),
          pageSize: 1000,
          ...(pageToken ? { pageToken } : {}),
        } satisfies ListPreviewFlowsRequest);
        flows += response.previewFlows.length;
        events += response.previewFlows.reduce((sum, f) => sum + f.count, 0);
        pageToken = response.nextPageToken;
        if (!pageToken) break;
      }
      return `${id} ${int(flows)} flows of ${int(events)} changed events (${events === inFlows ? "the report's, exactly" : `NOT the report's ${int(inFlows)}`})`;
    } catch (error) {
      return `${id}: previewFlows failed (${errorText(error)})`;
    }
  };
  /** An experiment's rules, as created (the K = 10 scenarios' seven more flip another tenth each). */
  const rulesOf = (id: string): FirewallRule[] => variants[id] ?? flipTenth(TENTHS.indexOf(id) + 1);
  return {
    rules,
    rulesOf,
    policyName,
    experimentName,
    active,
    start,
    stopPreview,
    ensureActive,
    ALL,
    TEN,
    createTenths,
    deleteTenths,
    reportsOf,
    listFlows,
  };
}

export type Experiments = Awaited<ReturnType<typeof setUpExperiments>>;
