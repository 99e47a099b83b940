import { writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { canonicalJson } from '@rollout/contracts';
import type {
  BacktestOperation,
  FirewallPolicy,
  FirewallPolicyExperiment,
  Operation,
  PreviewReport,
} from '@rollout/contracts';
import { diffPolicies, hasChanges } from './diff';
import { CliError, Gateway } from './gateway';
import { CommitBody, PolicyApi, policyName } from './policy-api';
import {
  FileFormat,
  NormalisedPolicy,
  formatPolicyFile,
  normalisePolicy,
  readPolicyFile,
} from './policy-file';
import { PlanBinding, readPlanFile, writePlanFile } from './plan-file';
import {
  EXIT,
  Impact,
  PLAN_SCHEMA_VERSION,
  PlanModel,
  Thresholds,
  checkThresholds,
  exitCodeOf,
  impactOf,
  readinessOf,
  semanticOf,
} from './plan-model';
import { renderJson, renderMarkdown, renderText } from './render';

/** main.ts prints a CliError as one line and exits 1. */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Colour on stdout (a TTY without NO_COLOR, and not --no-color). */
  colour: boolean;
  /** On a terminal only, so pipelines log results. */
  progress: (line: string) => void;
}

export interface Connection {
  gateway: string;
  token?: string;
  project?: string;
  location: string;
  planKey?: string;
}

export interface OutputOptions {
  json?: boolean;
  markdown?: boolean;
}

const api = (c: Connection, io: Io) =>
  new PolicyApi(new Gateway({ url: c.gateway, token: c.token }), io.progress);

const live = (policy: FirewallPolicy): NormalisedPolicy => normalisePolicy(policy);

const sameContent = (a: NormalisedPolicy, b: NormalisedPolicy) =>
  canonicalJson(normalisePolicy(a)) === canonicalJson(normalisePolicy(b));

function print(model: PlanModel, output: OutputOptions, io: Io) {
  if (output.json) io.out(renderJson(model));
  else if (output.markdown) io.out(renderMarkdown(model));
  else io.out(renderText(model, { colour: io.colour }));
}

export async function exportCommand(
  reference: string,
  options: { format: FileFormat; output?: string },
  c: Connection,
  io: Io,
): Promise<number> {
  const name = policyName(reference, c.project, c.location);
  const policy = await api(c, io).getPolicy(name);
  const text = formatPolicyFile(name, live(policy), options.format);
  if (options.output) {
    await writeFile(options.output, text);
    io.err(
      `Wrote ${name} (etag ${policy.etag}, ${policy.rules.length} rules) to ${options.output}.\n`,
    );
  } else io.out(text);
  return EXIT.OK;
}

export async function driftCommand(
  file: string,
  options: OutputOptions & { policy?: string },
  c: Connection,
  io: Io,
): Promise<number> {
  const parsed = await readPolicyFile(file);
  const name = targetPolicy(options.policy ?? parsed.name, file, c);
  const policy = await api(c, io).getPolicy(name);
  const model = baseModel('drift', name, policy, { file }, parsed.policy);
  model.exitCode = exitCodeOf(model);
  print(model, options, io);
  return model.exitCode;
}

function baseModel(
  command: PlanModel['command'],
  name: string,
  policy: FirewallPolicy,
  target: PlanModel['target'],
  content: NormalisedPolicy,
): PlanModel {
  const diff = diffPolicies(live(policy), content);
  return {
    schemaVersion: PLAN_SCHEMA_VERSION,
    command,
    policy: name,
    livePolicyEtag: policy.etag,
    target,
    changes: hasChanges(diff),
    diff,
    impact: [],
    thresholds: [],
    exitCode: 0,
  };
}

function targetPolicy(reference: string | undefined, file: string, c: Connection) {
  if (!reference)
    throw new CliError(
      `${file} does not name its policy: give --policy (rollout export writes the name).`,
    );
  return policyName(reference, c.project, c.location);
}

export interface PlanOptions extends OutputOptions, Thresholds {
  policy?: string;
  experiment: string;
  out: string;
  previewMs?: number;
}

/** A preview moves the experiment's etag, and a commit names the version it ends at. */
async function measure(
  policyApi: PolicyApi,
  experiment: string,
  etag: string,
  previewMs: number | undefined,
): Promise<{ impact: Impact[]; report: PreviewReport; etag: string }> {
  let report = await policyApi.reportFor(experiment, etag);
  const backtest: BacktestOperation = await policyApi.backtest(experiment);
  const result = backtest.response!;
  const window = result.window;
  const impact: Impact[] = [
    impactOf(
      'backtest',
      result.report.configurations[0],
      result.topChangedFlows,
      {
        ...(window.replayedStartTime ? { startTime: window.replayedStartTime } : {}),
        ...(window.replayedEndTime ? { endTime: window.replayedEndTime } : {}),
        summary: window.summary,
      },
      backtest.name,
    ),
  ];
  if (previewMs === undefined) return { impact, report, etag };
  const preview = await policyApi.preview(experiment, previewMs);
  report = preview.report;
  const configuration = report.configurations.find(
    (c) => c.experimentEtag === preview.previewedEtag,
  );
  const flows = configuration
    ? await policyApi.flows(experiment, configuration.experimentEtag, configuration.livePolicyEtag)
    : [];
  impact.push(
    impactOf('preview', configuration, flows, {
      ...(configuration
        ? { startTime: configuration.firstEventTime, endTime: configuration.lastEventTime }
        : {}),
      summary: configuration?.completeness?.summary ?? 'No event was previewed.',
    }),
  );
  return { impact, report, etag: preview.etag };
}

interface Change {
  command: 'plan' | 'rollback';
  name: string;
  policy: FirewallPolicy;
  target: PlanModel['target'];
  content: NormalisedPolicy;
  experiment: () => Promise<FirewallPolicyExperiment>;
  /** Besides the etags every plan binds. */
  binding: (report: PreviewReport) => Partial<PlanBinding>;
  previewMs?: number;
}

async function planChange(
  change: Change,
  options: OutputOptions & Thresholds & { out: string },
  policyApi: PolicyApi,
  c: Connection,
  io: Io,
): Promise<number> {
  const { name, policy } = change;
  const model = baseModel(change.command, name, policy, change.target, change.content);
  let binding: Omit<PlanBinding, 'model' | 'createTime' | 'planFileVersion'> = {
    kind: 'none',
    gateway: c.gateway,
    policy: name,
    livePolicyEtag: policy.etag,
  };
  if (model.changes) {
    const experiment = await change.experiment();
    const { impact, report, etag } = await measure(
      policyApi,
      experiment.name,
      experiment.etag,
      change.previewMs,
    );
    model.experiment = { name: experiment.name, etag };
    model.impact = impact;
    model.semantic = semanticOf((await policyApi.ruleDiff(experiment.name)).semantic);
    model.readiness = readinessOf(report.readiness, report.reportEtag);
    model.thresholds = checkThresholds(impact, options);
    binding = {
      ...binding,
      experiment: experiment.name,
      experimentEtag: etag,
      ...change.binding(report),
    };
  }
  model.exitCode = exitCodeOf(model);
  model.planFile = options.out;
  await writePlanFile(
    options.out,
    { planFileVersion: 1, createTime: new Date().toISOString(), ...binding, model },
    c.planKey,
  );
  print(model, options, io);
  return model.exitCode;
}

export async function planCommand(
  file: string,
  options: PlanOptions,
  c: Connection,
  io: Io,
): Promise<number> {
  const parsed = await readPolicyFile(file);
  const name = targetPolicy(options.policy ?? parsed.name, file, c);
  const policyApi = api(c, io);
  const policy = await policyApi.getPolicy(name);
  return planChange(
    {
      command: 'plan',
      name,
      policy,
      target: { file },
      content: parsed.policy,
      experiment: () =>
        policyApi.putExperiment(name, options.experiment, parsed.policy, (e) =>
          sameContent(normalisePolicy(e.firewallPolicy), parsed.policy),
        ),
      binding: (report) => ({
        kind: 'commit',
        ...(report.reportEtag ? { reportEtag: report.reportEtag } : {}),
      }),
      previewMs: options.previewMs,
    },
    options,
    policyApi,
    c,
    io,
  );
}

export interface RollbackOptions extends OutputOptions, Thresholds {
  to: string;
  plan?: boolean;
  out: string;
  experiment: string;
  reason?: string;
}

export async function rollbackCommand(
  reference: string,
  options: RollbackOptions,
  c: Connection,
  io: Io,
): Promise<number> {
  const name = policyName(reference, c.project, c.location);
  const policyApi = api(c, io);
  const [policy, revision] = await Promise.all([
    policyApi.getPolicy(name),
    policyApi.getRevision(name, options.to),
  ]);
  if (!options.plan)
    return rollback(
      policyApi,
      name,
      options.to,
      policy.etag,
      options.reason,
      `rollback-${policy.etag}-${options.to}`,
      io,
    );
  if (revision.rules === null)
    throw new CliError(`revision ${options.to} of ${name} holds no rules: it cannot be restored.`);
  return planChange(
    {
      command: 'rollback',
      name,
      policy,
      target: { revision: options.to },
      // :rollback restores the revision's whole resource (experiment.v1 1.6.0), so the plan diffs it.
      content: normalisePolicy({
        displayName: revision.displayName,
        description: revision.description,
        rules: revision.rules,
      }),
      experiment: () => policyApi.experimentFromRevision(name, options.experiment, options.to),
      binding: () => ({ kind: 'rollback', revisionId: options.to }),
    },
    options,
    policyApi,
    c,
    io,
  );
}

/**
 * AIP-155: applying the same plan again acts once. The service keeps one answer per request id
 * whatever the method, so an approval needs its own (under the proposal's it would be answered
 * with the proposal). A refused call keeps no answer, so an approval after a refused one acts.
 */
const planRequestId = (plan: PlanBinding, verb?: 'proposeCommit' | 'approveCommit') => {
  const digest = createHash('sha256').update(canonicalJson(plan)).digest('hex').slice(0, 40);
  return verb ? `rollout-${verb}-${digest}` : `rollout-${digest}`;
};

async function rollback(
  policyApi: PolicyApi,
  name: string,
  revisionId: string,
  etag: string,
  reason: string | undefined,
  requestId: string,
  io: Io,
): Promise<number> {
  const body = {
    revisionId,
    etag,
    requestId: requestId.slice(0, 128),
    ...(reason ? { reason } : {}),
  };
  const operation = await policyApi.gateway.post<Operation>(`/v1/${name}:rollback`, body);
  return applied(operation, `Rolled ${name} back to revision ${revisionId}`, io);
}

export function applied(operation: Operation, done: string, io: Io): number {
  const policy = operation.response as unknown as FirewallPolicy | undefined;
  io.out(`${done}: the live policy's etag is now ${policy?.etag ?? '(unknown)'}.\n`);
  return EXIT.OK;
}

export function submittedForReview(experiment: FirewallPolicyExperiment, planPath: string): string {
  const proposal = experiment.commitProposal;
  const etag = proposal?.experimentEtag ?? experiment.etag;
  const by = proposal ? ` by ${proposal.proposer}` : '';
  return `Submitted for review as the commit proposal of ${experiment.name} (etag ${etag})${by}; another editor approves with \`rollout approve ${planPath}\`. Nothing is live yet.\n`;
}

/** Nothing was changed by it. */
export function refusal(
  action: 'plan' | 'approval',
  error: CliError,
  moved: string[],
  planPath: string,
): CliError {
  const since = moved.length ? `. Since the plan: ${moved.join('; ')}` : '';
  const next =
    error.reason === 'SELF_APPROVAL'
      ? '' // the service's words already say another editor must
      : error.reason === 'NO_COMMIT_PROPOSAL' && !moved.length
        ? ` Propose it first: rollout apply ${planPath}.`
        : ' Make a new plan.';
  return new CliError(
    `the service refused the ${action}, nothing changed: ${error.message.replace(/\.$/, '')}${since}.${next}`,
    error.status,
  );
}

async function refused(
  action: 'plan' | 'approval',
  error: unknown,
  policyApi: PolicyApi,
  plan: PlanBinding,
  planPath: string,
): Promise<unknown> {
  if (!(error instanceof CliError) || !error.status) return error;
  return refusal(action, error, await whatMoved(policyApi, plan), planPath);
}

async function openPlanFile(planPath: string, c: Connection, io: Io): Promise<PlanBinding> {
  const plan = await readPlanFile(planPath, c.planKey);
  if (plan.gateway.replace(/\/+$/, '') !== c.gateway.replace(/\/+$/, ''))
    io.err(`note: ${planPath} was planned against ${plan.gateway}; using ${c.gateway}.\n`);
  return plan;
}

const commitBody = (plan: PlanBinding, requestId: string, reason?: string): CommitBody => ({
  etag: plan.experimentEtag!,
  livePolicyEtag: plan.livePolicyEtag,
  ...(plan.reportEtag ? { reportEtag: plan.reportEtag } : {}),
  requestId,
  ...(reason ? { reason } : {}),
});

export async function applyCommand(
  planPath: string,
  options: { reason?: string },
  c: Connection,
  io: Io,
): Promise<number> {
  const plan = await openPlanFile(planPath, c, io);
  if (plan.kind === 'none') {
    io.out(`Nothing to apply: the plan found no changes to ${plan.policy}.\n`);
    return EXIT.OK;
  }
  const policyApi = api(c, io);
  try {
    if (plan.kind === 'rollback') {
      const code = await rollback(
        policyApi,
        plan.policy,
        plan.revisionId!,
        plan.livePolicyEtag,
        options.reason,
        planRequestId(plan),
        io,
      );
      // The experiment only served to preview the rollback.
      if (plan.experiment)
        await policyApi.gateway.delete(`/v1/${plan.experiment}`).catch(() => undefined);
      return code;
    }
    const experiment = plan.experiment!;
    const body = commitBody(plan, planRequestId(plan), options.reason);
    try {
      const operation = await policyApi.commitVerb(experiment, 'commit', body);
      return applied(operation, `Applied ${experiment} to ${plan.policy}`, io);
    } catch (error) {
      if (!(error instanceof CliError) || error.reason !== 'REVIEW_REQUIRED') throw error;
    }
    // The project requires review: the same versions and reason, proposed for another editor.
    const proposed = await policyApi.commitVerb(experiment, 'proposeCommit', {
      ...body,
      requestId: planRequestId(plan, 'proposeCommit'),
    });
    io.out(submittedForReview(proposed.response as unknown as FirewallPolicyExperiment, planPath));
    return EXIT.SUBMITTED_FOR_REVIEW;
  } catch (error) {
    throw await refused('plan', error, policyApi, plan, planPath);
  }
}

/** Bound to the plan's reportEtag: what the approver approves is the plan they read. */
export async function approveCommand(planPath: string, c: Connection, io: Io): Promise<number> {
  const plan = await openPlanFile(planPath, c, io);
  if (plan.kind === 'none')
    throw new CliError(
      `${planPath} plans no change to ${plan.policy}: there is nothing to approve.`,
    );
  if (plan.kind === 'rollback')
    throw new CliError(
      `${planPath} plans a rollback, which is not reviewed: apply it with rollout apply ${planPath}.`,
    );
  const policyApi = api(c, io);
  const experiment = plan.experiment!;
  // Only to say who proposed it and why: whether there is a proposal is the service's to check.
  const found = await policyApi.findExperiment(experiment).catch(() => undefined);
  const proposal =
    found?.commitProposal?.experimentEtag === plan.experimentEtag
      ? found?.commitProposal
      : undefined;
  try {
    // No reason: an approval records the proposal's.
    const body = commitBody(plan, planRequestId(plan, 'approveCommit'));
    const operation = await policyApi.commitVerb(experiment, 'approveCommit', body);
    const proposed = proposal
      ? `, proposed by ${proposal.proposer}${proposal.reason ? ` (${JSON.stringify(proposal.reason)})` : ''}`
      : '';
    return applied(
      operation,
      `Approved and applied ${experiment} to ${plan.policy}${proposed}`,
      io,
    );
  } catch (error) {
    throw await refused('approval', error, policyApi, plan, planPath);
  }
}

export async function whatMoved(policyApi: PolicyApi, plan: PlanBinding): Promise<string[]> {
  const moved: string[] = [];
  const policy = await policyApi.getPolicy(plan.policy).catch(() => undefined);
  if (!policy) moved.push(`the live policy ${plan.policy} is gone`);
  else if (policy.etag !== plan.livePolicyEtag)
    moved.push(`the live policy moved from etag ${plan.livePolicyEtag} to ${policy.etag}`);
  if (plan.experiment && plan.kind === 'commit') {
    const experiment = await policyApi.findExperiment(plan.experiment).catch(() => undefined);
    if (!experiment) moved.push(`the experiment ${plan.experiment} is gone (committed or deleted)`);
    else if (experiment.etag !== plan.experimentEtag)
      moved.push(`the experiment moved from etag ${plan.experimentEtag} to ${experiment.etag}`);
    else if (plan.reportEtag) {
      const report = await policyApi.report(plan.experiment).catch(() => undefined);
      const matters = (etag?: string) => etag?.split('.')[0];
      if (report && matters(report.reportEtag) !== matters(plan.reportEtag))
        moved.push(`the report moved from ${plan.reportEtag} to ${report.reportEtag ?? 'none'}`);
    }
  }
  return moved;
}

export async function historyCommand(
  reference: string,
  options: { json?: boolean; limit: number },
  c: Connection,
  io: Io,
): Promise<number> {
  const name = policyName(reference, c.project, c.location);
  const { revisions } = await api(c, io).listRevisions(name, options.limit);
  if (options.json) {
    io.out(
      `${JSON.stringify({ policy: name, revisions: revisions.map(({ rules: _rules, ...r }) => r) }, null, 2)}\n`,
    );
    return EXIT.OK;
  }
  const rows = revisions.map((r) => {
    const s = r.source;
    const what =
      s.kind === 'commit'
        ? `commit of ${s.experiment?.split('/').pop() ?? '?'}`
        : s.kind === 'rollback'
          ? `rollback to ${s.rolledBackTo}`
          : s.kind;
    const review = s.review ? `, proposed by ${s.review.proposer}` : '';
    return [r.revisionId, r.createTime, r.actor, what + review, s.reason ?? '', r.requestId ?? ''];
  });
  const header = ['revision', 'time', 'actor', 'change', 'reason', 'request id'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  io.out(`${name}\n${[line(header), ...rows.map(line)].join('\n')}\n`);
  return EXIT.OK;
}
