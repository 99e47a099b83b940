import type { FirewallRule } from '@rollout/contracts';
import type { ElementChange, FieldChange, ResourceDiff, RuleChange } from './diff';
import type { Impact, ImpactGroup, PlanModel, ThresholdResult } from './plan-model';

/** The text and the Markdown share the lines below, so they cannot say different things. */
export type Sign = '+' | '-' | '~' | ' ';

export interface DiffLine {
  sign: Sign;
  depth: number;
  text: string;
}

const SIGN: Record<string, Sign> = { added: '+', removed: '-', changed: '~' };

const value = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(value).join(', ')}]`
    : typeof v === 'string'
      ? JSON.stringify(v)
      : String(v);

const layer4Text = (config: { ipProtocol: string; ports?: string[] }) =>
  config.ports
    ? `${config.ipProtocol} ${config.ports.join(',')}`
    : `${config.ipProtocol} (every port)`;

const ruleTitle = (rule: FirewallRule) =>
  `rule ${rule.priority} (${rule.direction} ${rule.action}${rule.disabled ? ', disabled' : ''})`;

function elementLines(element: ElementChange, depth: number): DiffLine[] {
  const sign = SIGN[element.kind];
  if (element.kind !== 'changed' && !element.portsAdded && !element.portsRemoved)
    return [{ sign, depth, text: element.element }];
  if (element.kind === 'added')
    return [
      {
        sign,
        depth,
        text: layer4Text({ ipProtocol: element.element, ports: ports(element.portsAdded) }),
      },
    ];
  if (element.kind === 'removed')
    return [
      {
        sign,
        depth,
        text: layer4Text({ ipProtocol: element.element, ports: ports(element.portsRemoved) }),
      },
    ];
  return [
    { sign: '~', depth, text: `${element.element} ports` },
    ...(element.portsRemoved ?? []).map((p) => ({ sign: '-' as Sign, depth: depth + 1, text: p })),
    ...(element.portsAdded ?? []).map((p) => ({ sign: '+' as Sign, depth: depth + 1, text: p })),
  ];
}

const ports = (list?: string[]) =>
  list && !(list.length === 1 && list[0] === 'all') ? list : undefined;

function fieldLines(field: FieldChange, depth: number, whole: boolean): DiffLine[] {
  const sign = SIGN[field.kind];
  const side = field.kind === 'removed' ? field.before : field.after;
  if (whole || !field.elements) {
    if (field.field === 'match.layer4Configs' && Array.isArray(side))
      return [{ sign, depth, text: `${field.field}: ${side.map(layer4Text).join('; ')}` }];
    if (field.kind === 'changed')
      return [
        { sign, depth, text: `${field.field}: ${value(field.before)} → ${value(field.after)}` },
      ];
    return [{ sign, depth, text: `${field.field}: ${value(side)}` }];
  }
  return [
    { sign: '~', depth, text: field.field },
    ...field.elements.flatMap((element) => elementLines(element, depth + 1)),
  ];
}

function ruleLines(rule: RuleChange): DiffLine[] {
  const shown = (rule.after ?? rule.before)!;
  const whole = rule.kind !== 'changed';
  return [
    { sign: SIGN[rule.kind], depth: 0, text: ruleTitle(shown) },
    ...rule.fields.flatMap((field) => fieldLines(field, 1, whole)),
  ];
}

export function diffLines(diff: ResourceDiff): DiffLine[] {
  const lines: DiffLine[] = [];
  if (diff.fields.length)
    lines.push(
      { sign: '~', depth: 0, text: 'policy' },
      ...diff.fields.flatMap((field) => fieldLines(field, 1, true)),
    );
  for (const rule of diff.rules) lines.push(...ruleLines(rule));
  return lines;
}

export function diffSummary(diff: ResourceDiff): string {
  const s = diff.summary;
  const policy = s.policyFieldsChanged
    ? `; ${s.policyFieldsChanged} policy field(s) to change`
    : '';
  return `${s.rulesAdded} rule(s) to add, ${s.rulesChanged} to change, ${s.rulesRemoved} to remove${policy} (${diff.unchangedRules} unchanged).`;
}

const percent = (share: number) => `${(share * 100).toFixed(share && share < 0.0001 ? 4 : 2)}%`;
const count = (n: number) => n.toLocaleString('en-US');

function impactLines(impact: Impact): string[] {
  const head =
    impact.source === 'backtest'
      ? `backtest over the retained traffic${impact.operation ? ` (${impact.operation})` : ''}`
      : 'live preview';
  const window =
    impact.window.startTime && impact.window.endTime
      ? `window ${impact.window.startTime} – ${impact.window.endTime}`
      : 'no traffic in the window';
  const lines = [
    `${head}, ${window}`,
    impact.window.summary,
    `${count(impact.evaluated)} events evaluated, ${count(impact.changed)} change verdict (${percent(impact.changedShare)}): ${count(impact.allowToDeny)} allow→deny, ${count(impact.denyToAllow)} deny→allow`,
    `changed flows: ${count(impact.newlyDeniedFlows)} newly denied, ${count(impact.newlyAllowedFlows)} newly allowed` +
      (impact.flowsComplete
        ? ''
        : ` (at least: the ${count(impact.listedFlows)} flows listed hold ${count(impact.listedChangedEvents)} of the ${count(impact.changed)} changed events)`),
  ];
  return lines;
}

/** Groups shown for people, the most changed first; `--json` has every one. */
export const MAX_GROUPS_SHOWN = 20;

function groupRows(groups: ImpactGroup[]): string[][] {
  const rows = groups
    .slice(0, MAX_GROUPS_SHOWN)
    .map((g) => [g.key, count(g.allowToDeny), count(g.denyToAllow), count(g.flows)]);
  if (groups.length > MAX_GROUPS_SHOWN)
    rows.push([`… ${groups.length - MAX_GROUPS_SHOWN} more (--json)`, '', '', '']);
  return rows;
}

const thresholdText = (t: ThresholdResult) => {
  const show = (v: number) => (t.name === 'maxChangedShare' ? percent(v) : count(v));
  return `${t.name} (${t.source}): ${t.lowerBound ? 'at least ' : ''}${show(t.value)}, limit ${show(t.limit)}${t.exceeded ? ' EXCEEDED' : ''}`;
};

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), ...rows.map(line)];
}

const GROUP_HEADER = ['', 'allow→deny', 'deny→allow', 'flows'];

export interface TextOptions {
  colour: boolean;
}

const COLOURS: Record<Sign, string> = {
  '+': '\x1b[32m',
  '-': '\x1b[31m',
  '~': '\x1b[33m',
  ' ': '',
};

export function renderText(model: PlanModel, options: TextOptions): string {
  const paint = (sign: Sign, text: string) =>
    options.colour && COLOURS[sign] ? `${COLOURS[sign]}${text}\x1b[0m` : text;
  const bold = (text: string) => (options.colour ? `\x1b[1m${text}\x1b[0m` : text);
  const out: string[] = [];
  out.push(
    bold(
      `${model.command === 'drift' ? 'Drift of' : 'Plan for'} ${model.policy} (live etag ${model.livePolicyEtag}) against ${targetText(model)}`,
    ),
    '',
  );
  if (!model.changes) {
    out.push(
      model.command === 'drift'
        ? 'No drift: the live policy is the file.'
        : 'No changes: the live policy is already this.',
    );
  } else {
    for (const line of diffLines(model.diff))
      out.push(paint(line.sign, `${'    '.repeat(line.depth)}  ${line.sign} ${line.text}`));
    out.push('', `${model.command === 'drift' ? 'Drift' : 'Plan'}: ${diffSummary(model.diff)}`);
  }
  if (model.semantic) {
    out.push('', bold("What it changes, in the service's words:"));
    const none = !model.semantic.nowDenied.length && !model.semantic.nowAllowed.length;
    if (none) out.push('  no traffic changes verdict');
    for (const s of model.semantic.nowDenied) out.push(paint('-', `  - ${s}`));
    for (const s of model.semantic.nowAllowed) out.push(paint('+', `  + ${s}`));
    if (model.semantic.truncated) out.push('  (not every region is listed)');
  }
  for (const impact of model.impact) {
    out.push('', bold('Traffic impact:'), ...impactLines(impact).map((l) => `  ${l}`));
    if (impact.byPort.length)
      out.push(
        '',
        ...table(['by port', ...GROUP_HEADER.slice(1)], groupRows(impact.byPort)).map(
          (l) => `  ${l}`,
        ),
      );
    if (impact.bySourcePrefix.length)
      out.push(
        '',
        ...table(
          ['by source prefix', ...GROUP_HEADER.slice(1)],
          groupRows(impact.bySourcePrefix),
        ).map((l) => `  ${l}`),
      );
  }
  if (model.readiness) {
    out.push(
      '',
      bold(
        `Readiness gates, as the service judges them: ${model.readiness.ready ? 'ready' : 'not ready'}`,
      ),
    );
    if (!model.readiness.gates.length) out.push('  (the experiment has no gates)');
    for (const gate of model.readiness.gates)
      out.push(
        paint(
          gate.holds ? '+' : '-',
          `  ${gate.holds ? '✓' : '✗'} ${gate.kind}: ${gate.description}`,
        ),
      );
  }
  if (model.thresholds.length) {
    out.push('', bold('Thresholds:'));
    for (const t of model.thresholds)
      out.push(paint(t.exceeded ? '-' : '+', `  ${t.exceeded ? '✗' : '✓'} ${thresholdText(t)}`));
  }
  if (model.planFile)
    out.push(
      '',
      `Plan written to ${model.planFile}: apply it with \`rollout apply ${model.planFile}\`.`,
    );
  return `${out.join('\n')}\n`;
}

const targetText = (model: PlanModel) =>
  model.target.revision ? `revision ${model.target.revision}` : (model.target.file ?? '');

const mdCell = (text: string) => text.replace(/\|/g, '\\|');

function mdTable(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.map(mdCell).join(' | ')} |`,
    `| ${header.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(mdCell).join(' | ')} |`),
  ];
}

/** Diff lines a Markdown comment shows: GitHub refuses comments over 65,536 characters. */
export const MAX_MARKDOWN_DIFF_LINES = 400;

export function renderMarkdown(model: PlanModel): string {
  const out: string[] = [];
  const title =
    model.command === 'drift' ? 'Drift' : model.command === 'rollback' ? 'Rollback plan' : 'Plan';
  out.push(`### ${title}: \`${model.policy}\``, '');
  out.push(
    `Live etag \`${model.livePolicyEtag}\`, against ${targetText(model) ? `\`${targetText(model)}\`` : 'the file'}.`,
    '',
  );
  if (!model.changes) out.push(model.command === 'drift' ? '**No drift.**' : '**No changes.**');
  else {
    const lines = diffLines(model.diff);
    out.push('```diff');
    for (const line of lines.slice(0, MAX_MARKDOWN_DIFF_LINES))
      out.push(
        `${line.sign === '~' ? '!' : line.sign}${'    '.repeat(line.depth)} ${line.sign === '~' ? '~ ' : ''}${line.text}`,
      );
    out.push('```');
    if (lines.length > MAX_MARKDOWN_DIFF_LINES)
      out.push(
        '',
        `_${lines.length - MAX_MARKDOWN_DIFF_LINES} more diff lines are not shown here (a comment holds at most 65,536 characters): the whole diff is in the plan file and in \`--json\`._`,
      );
    out.push('', `**${diffSummary(model.diff)}**`);
  }
  if (model.semantic) {
    out.push('', "#### What it changes, in the service's words", '');
    if (!model.semantic.nowDenied.length && !model.semantic.nowAllowed.length)
      out.push('No traffic changes verdict.');
    for (const s of model.semantic.nowDenied) out.push(`- 🔴 ${s}`);
    for (const s of model.semantic.nowAllowed) out.push(`- 🟢 ${s}`);
    if (model.semantic.truncated) out.push('', '_Not every region is listed._');
  }
  for (const impact of model.impact) {
    out.push('', `#### Traffic impact (${impact.source})`, '');
    out.push(...impactLines(impact).map((l) => `- ${l}`));
    if (impact.byPort.length)
      out.push('', ...mdTable(['port', ...GROUP_HEADER.slice(1)], groupRows(impact.byPort)));
    if (impact.bySourcePrefix.length)
      out.push(
        '',
        ...mdTable(['source prefix', ...GROUP_HEADER.slice(1)], groupRows(impact.bySourcePrefix)),
      );
  }
  if (model.readiness) {
    out.push('', `#### Readiness gates: ${model.readiness.ready ? 'ready' : 'not ready'}`, '');
    if (!model.readiness.gates.length) out.push('The experiment has no gates.');
    for (const gate of model.readiness.gates)
      out.push(`- ${gate.holds ? '✅' : '❌'} \`${gate.kind}\`: ${gate.description}`);
  }
  if (model.thresholds.length) {
    out.push('', '#### Thresholds', '');
    for (const t of model.thresholds) out.push(`- ${t.exceeded ? '❌' : '✅'} ${thresholdText(t)}`);
  }
  out.push('', `<sub>rollout ${model.command}, exit code ${model.exitCode}</sub>`);
  return `${out.join('\n')}\n`;
}

export function renderJson(model: PlanModel): string {
  return `${JSON.stringify(model, null, 2)}\n`;
}
