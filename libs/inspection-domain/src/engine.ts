import type {
  EvaluateInspectionRulesResponse,
  InspectionData,
  InspectionPhase,
  InspectionRuleStep,
  JsonPatchOperation,
  MatchedInspectionRule,
} from '@rollout/contracts';
import { ACTIONS } from './actions/registry';
import type { ActionContext, ActionPlugin, LogLevel } from './actions/types';
import { CONDITIONS, ConditionPlugin, parseConditionOp } from './conditions';
import { RuleError } from './errors';
import { interpolate, MissingKeys } from './interpolation';
import { getAt, removeAt, setAt } from './json-pointer';
import { MASK, MaskSecrets, seesSecrets } from './masking';
import { BoundArgs, bindArgs } from './params';
import { MAX_LOOP_ITEMS, RuleDefinition, orderRules } from './rule';
import { cloneJson, isPlainObject, JsonObject, typeName } from './values';

export interface EngineOptions {
  maskSecrets: MaskSecrets;
}

export interface RecordedOperation {
  operation: JsonPatchOperation;
  /** Written by a sensitive rule: its value is hidden wherever a person reads it. */
  sensitive: boolean;
}

export interface EngineLog {
  level: LogLevel;
  rule: string;
  message: string;
}

/** Everything a run decided; `publicView`/`resultView` say how each audience sees it. */
export interface EngineResult {
  matched: (MatchedInspectionRule & { sensitive: boolean })[];
  nodePatch: RecordedOperation[];
  portPatches: Map<string, RecordedOperation[]>;
  pluginData: JsonObject;
  sensitivePluginDataPaths: string[][];
  failure: string | null;
  /** Ready to log: a sensitive rule's messages are replaced by a notice. */
  logs: EngineLog[];
}

type RuleLike = Pick<RuleDefinition, 'uuid' | 'description' | 'sensitive'>;

/** A condition or action with its op looked up and its arguments bound once, not per event. */
interface CompiledStep {
  step: InspectionRuleStep;
  args: BoundArgs;
  /** Whether any argument holds a `{…}` to interpolate (otherwise `args` is used as is). */
  templated: boolean;
}

interface CompiledCondition extends CompiledStep {
  plugin: ConditionPlugin;
  inverted: boolean;
  /** Same key → same result while the data is unchanged (many rules share conditions). */
  key: string;
}

interface CompiledAction extends CompiledStep {
  plugin: ActionPlugin;
}

interface CompiledRule {
  rule: RuleDefinition;
  conditions: CompiledCondition[];
  actions: CompiledAction[];
  /** A rule that cannot be compiled fails when it runs, like any other rule error. */
  error?: unknown;
}

function hasTemplate(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('{') || value.includes('}');
  if (Array.isArray(value)) return value.some(hasTemplate);
  if (isPlainObject(value)) return Object.values(value).some(hasTemplate);
  return false;
}

function compile(rule: RuleDefinition): CompiledRule {
  try {
    const conditions = rule.conditions.map((step): CompiledCondition => {
      const { name, inverted } = parseConditionOp(step.op);
      const plugin = CONDITIONS.get(name);
      if (!plugin) throw new RuleError(`unknown condition ${name}`);
      const args = bindArgs(name, plugin.params, step.args ?? []);
      return { step, plugin, inverted, args, templated: hasTemplate(args), key: JSON.stringify([step.op, args, step.loop, step.multiple]) };
    });
    const actions = rule.actions.map((step): CompiledAction => {
      const plugin = ACTIONS.get(step.op);
      if (!plugin) throw new RuleError(`unknown action ${step.op}`);
      const args = bindArgs(step.op, plugin.params, step.args ?? []);
      return { step, plugin, args, templated: hasTemplate(args) };
    });
    return { rule, conditions, actions };
  } catch (error) {
    return { rule, conditions: [], actions: [], error };
  }
}

class Stop extends Error {}

/**
 * The rules of every phase, ordered once (higher priority first, then creation order), so
 * running an event costs only the matching.
 */
export class RuleSet {
  private readonly byPhase = new Map<InspectionPhase, CompiledRule[]>();

  constructor(
    rules: readonly RuleDefinition[],
    private readonly options: EngineOptions,
  ) {
    for (const rule of orderRules(rules)) {
      const list = this.byPhase.get(rule.phase) ?? [];
      list.push(compile(rule));
      this.byPhase.set(rule.phase, list);
    }
  }

  /** Runs the phase's rules that apply to the data's scope; a `fail` or a rule error stops the run. */
  run(phase: InspectionPhase, data: InspectionData): EngineResult {
    const run = new Run(phase, data, this.options);
    for (const compiled of this.byPhase.get(phase) ?? []) {
      const { scope } = compiled.rule;
      if (scope !== null && scope !== (data.scope ?? null)) continue;
      if (!run.apply(compiled)) break;
    }
    return run.result;
  }
}

class Run implements ActionContext {
  readonly result: EngineResult;
  readonly node: JsonObject | null;
  readonly ports: JsonObject[];
  readonly pluginData: JsonObject;
  private readonly portGroups: JsonObject[];
  private readonly inventory: JsonObject;
  private rule!: RuleLike;
  /** Whether the current rule reads secrets as `***` (`mask_secrets`). */
  private mask = true;
  /** Condition results since the data last changed, per mask setting. */
  private readonly known = [new Map<string, boolean>(), new Map<string, boolean>()];

  constructor(
    readonly phase: InspectionPhase,
    data: InspectionData,
    private readonly options: EngineOptions,
  ) {
    // Working copies: actions change these, and later rules see the changes.
    this.node = phase === 'early' ? null : cloneJson(data.node ?? null);
    this.ports = phase === 'early' ? [] : cloneJson(data.ports ?? []);
    this.portGroups = phase === 'early' ? [] : cloneJson(data.port_groups ?? []);
    this.inventory = data.inventory ?? {};
    this.pluginData = cloneJson(data.plugin_data ?? {});
    this.result = {
      matched: [],
      nodePatch: [],
      portPatches: new Map(),
      pluginData: this.pluginData,
      sensitivePluginDataPaths: [],
      failure: null,
      logs: [],
    };
  }

  /** Returns false when the run must stop. */
  apply(compiled: CompiledRule): boolean {
    const { rule } = compiled;
    this.rule = rule;
    this.mask = !seesSecrets(this.options.maskSecrets, rule.sensitive);
    try {
      if (compiled.error) throw compiled.error;
      const scope = this.scopeFor();
      if (!compiled.conditions.every((condition) => this.condition(condition, scope))) return true;
      this.result.matched.push({ uuid: rule.uuid, description: rule.description, sensitive: rule.sensitive });
      for (const action of compiled.actions) this.action(action);
      return true;
    } catch (error) {
      if (error instanceof Stop) return false;
      this.result.failure = rule.sensitive
        ? `Rule ${rule.uuid} failed.`
        : `Rule ${rule.uuid}${rule.description ? ` (${rule.description})` : ''} failed: ${
            error instanceof RuleError ? error.message : 'unexpected error'
          }`;
      return false;
    }
  }

  /** What a rule's arguments may name (the working copies, so later rules see earlier changes). */
  private scopeFor(): Record<string, unknown> {
    return this.phase === 'early'
      ? { inventory: this.inventory, plugin_data: this.pluginData }
      : { node: this.node, ports: this.ports, port_groups: this.portGroups, inventory: this.inventory, plugin_data: this.pluginData };
  }

  private loopItems(step: InspectionRuleStep, scope: Record<string, unknown>, missing: MissingKeys): unknown[] | null {
    if (step.loop === undefined) return null;
    const items = interpolate(step.loop, scope, missing, this.mask);
    if (!Array.isArray(items)) throw new RuleError(`loop must give a list, got ${typeName(items)}`);
    if (items.length > MAX_LOOP_ITEMS) throw new RuleError(`loop over more than ${MAX_LOOP_ITEMS} items`);
    return items.length ? items : null;
  }

  private args(compiled: CompiledStep, scope: Record<string, unknown>, missing: MissingKeys): BoundArgs {
    return compiled.templated ? (interpolate(compiled.args, scope, missing, this.mask) as BoundArgs) : compiled.args;
  }

  private condition(compiled: CompiledCondition, scope: Record<string, unknown>): boolean {
    const known = this.known[this.mask ? 1 : 0];
    let result = known.get(compiled.key);
    if (result === undefined) known.set(compiled.key, (result = this.evaluate(compiled, scope)));
    return result;
  }

  /** Any write may change what a condition sees. */
  private changed(): void {
    this.known[0].clear();
    this.known[1].clear();
  }

  private evaluate(compiled: CompiledCondition, scope: Record<string, unknown>): boolean {
    const { step, plugin, inverted } = compiled;
    const once = (s: Record<string, unknown>) => plugin.test(this.args(compiled, s, 'null')) !== inverted;
    const items = this.loopItems(step, scope, 'null');
    if (!items) return once(scope);
    const withItem = (item: unknown) => once({ ...scope, item });
    switch (step.multiple ?? 'any') {
      case 'all':
        return items.every(withItem);
      case 'first':
        return withItem(items[0]);
      case 'last':
        return withItem(items[items.length - 1]);
      default:
        return items.some(withItem);
    }
  }

  private action(compiled: CompiledAction): void {
    const { step, plugin } = compiled;
    if (this.phase === 'early' && !plugin.supportsEarly) throw new RuleError(`${step.op} cannot run in the early phase`);
    const scope = this.scopeFor();
    const items = this.loopItems(step, scope, 'error');
    for (const item of items ?? [undefined]) {
      // Each iteration sees what the previous ones changed (the scope holds the working copies).
      plugin.run(this, this.args(compiled, items ? { ...scope, item } : scope, 'error'));
      if (this.result.failure !== null) throw new Stop();
    }
  }

  patchNode(operation: JsonPatchOperation): void {
    if (!this.node) throw new RuleError('no node is available in this phase');
    applyOperation(this.node, operation);
    this.result.nodePatch.push({ operation, sensitive: this.rule.sensitive });
    this.changed();
  }

  patchPort(port: JsonObject, operation: JsonPatchOperation): void {
    applyOperation(port, operation);
    const key = String(port.uuid ?? port.address);
    const list = this.result.portPatches.get(key) ?? [];
    list.push({ operation, sensitive: this.rule.sensitive });
    this.result.portPatches.set(key, list);
    this.changed();
  }

  wrotePluginData(tokens: string[]): void {
    if (this.rule.sensitive) this.result.sensitivePluginDataPaths.push(tokens);
    this.changed();
  }

  log(level: LogLevel, message: string): void {
    this.result.logs.push({
      level,
      rule: this.rule.uuid,
      message: this.rule.sensitive ? `Rule ${this.rule.uuid} logged a message (hidden: the rule is sensitive).` : message,
    });
  }

  fail(message: string): void {
    this.result.failure = this.rule.sensitive ? `Inspection failed by rule ${this.rule.uuid}.` : message;
  }
}

function applyOperation(target: JsonObject, operation: JsonPatchOperation) {
  const tokens = operation.path.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (operation.op === 'remove') removeAt(target, tokens);
  else setAt(target, tokens, cloneJson(operation.value));
}

function operations(list: RecordedOperation[], hide: boolean): JsonPatchOperation[] {
  return list.map(({ operation, sensitive }) =>
    hide && sensitive && 'value' in operation ? { ...operation, value: MASK } : operation,
  );
}

function view(result: EngineResult, hide: boolean): EvaluateInspectionRulesResponse {
  const pluginData = hide && result.sensitivePluginDataPaths.length ? cloneJson(result.pluginData) : result.pluginData;
  if (hide) {
    for (const tokens of result.sensitivePluginDataPaths) {
      // A path removed again later has nothing to hide.
      if (getAt(pluginData, tokens) !== undefined) setAt(pluginData, tokens, MASK, false);
    }
  }
  return {
    matched_rules: result.matched.map(({ uuid, description }) => ({ uuid, description })),
    node_patch: operations(result.nodePatch, hide),
    port_patches: Object.fromEntries([...result.portPatches].map(([port, list]) => [port, operations(list, hide)])),
    plugin_data: pluginData,
    failure: result.failure,
  };
}

/** For people (the `:evaluate` API): values written by sensitive rules read `***`. */
export function publicView(result: EngineResult): EvaluateInspectionRulesResponse {
  return view(result, true);
}

/** For the machinery that applies the changes (inspection results on NATS): real values. */
export function fullView(result: EngineResult): EvaluateInspectionRulesResponse {
  return view(result, false);
}
