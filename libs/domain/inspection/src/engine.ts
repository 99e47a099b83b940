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
import {
  CompiledArgument,
  compileArgument,
  compileArguments,
  compileLenient,
  MissingKeys,
  Reader,
  resolveArgument,
  Scope,
} from './interpolation';
import { getAt, parsePointer, removeAt, setAt } from './json-pointer';
import { MASK, MaskSecrets, maskSecrets, seesSecrets } from './masking';
import { BoundArgs, ParamSpec, bindArgs } from './params';
import { MAX_LOOP_ITEMS, RuleDefinition, orderRules } from './rule';
import { cloneJson, isPlainObject, JsonObject, typeName } from './values';

export interface EngineOptions {
  maskSecrets: MaskSecrets;
}

export interface RecordedOperation {
  operation: JsonPatchOperation;
  /** Its value is hidden wherever a person reads it. */
  sensitive: boolean;
}

export interface EngineLog {
  level: LogLevel;
  rule: string;
  message: string;
}

export interface EngineResult {
  matched: (MatchedInspectionRule & { sensitive: boolean })[];
  nodePatch: RecordedOperation[];
  portPatches: Map<string, RecordedOperation[]>;
  pluginData: JsonObject;
  sensitivePluginDataPaths: string[][];
  failure: string | null;
  /** A sensitive rule's messages are replaced by a notice. */
  logs: EngineLog[];
}

type RuleLike = Pick<RuleDefinition, 'uuid' | 'description' | 'sensitive'>;

/** Compiled once, not per event. */
interface CompiledStep {
  step: InspectionRuleStep;
  args: BoundArgs;
  resolve: CompiledArgument | null;
  /** In a loop Ironic interpolates every argument, not only its formatted ones. */
  resolveInLoop: CompiledArgument | null;
  /** null for no loop (an empty one is no loop). */
  loop: unknown[] | JsonObject | CompiledArgument | null;
  /** Ironic forces `force_strings` in loops. */
  forceStringsInLoop: boolean;
}

interface CompiledCondition extends CompiledStep {
  plugin: ConditionPlugin;
  inverted: boolean;
  /** Same condition → same id, and the same result while the data is unchanged. */
  id: number;
}

interface CompiledAction extends CompiledStep {
  plugin: ActionPlugin;
}

interface CompiledRule {
  rule: RuleDefinition;
  mask: boolean;
  conditions: CompiledCondition[];
  actions: CompiledAction[];
  /** Fails when it runs, like any other rule error. */
  error?: unknown;
}

function compileStep(
  step: InspectionRuleStep,
  name: string,
  params: ParamSpec[],
  formatted: readonly string[],
): CompiledStep {
  const args = bindArgs(name, params, step.args ?? []);
  let loop: CompiledStep['loop'] = null;
  const written: unknown = step.loop;
  if (Array.isArray(written)) {
    loop = written.length ? written : null;
  } else if (isPlainObject(written)) {
    loop = Object.keys(written).length ? written : null;
  } else if (written !== undefined) {
    loop = typeof written === 'string' ? compileArgument(written) : null;
    if (!loop) throw new RuleError('"loop" must be a list, a dict or exactly one {…} giving one');
  }
  return {
    step,
    args,
    resolve: compileArguments(args, formatted),
    resolveInLoop: loop === null ? null : compileArguments(args, null),
    loop,
    forceStringsInLoop: params.some((param) => param.name === 'force_strings'),
  };
}

/** Many rules share conditions. */
function compile(
  rule: RuleDefinition,
  ids: Map<string, number>,
  options: EngineOptions,
): CompiledRule {
  const mask = !seesSecrets(options.maskSecrets, rule.sensitive);
  try {
    const conditions = rule.conditions.map((step): CompiledCondition => {
      const { name, inverted } = parseConditionOp(step.op);
      const plugin = CONDITIONS.get(name);
      if (!plugin) throw new RuleError(`unknown condition ${name}`);
      const { args, resolve, resolveInLoop, loop, forceStringsInLoop } = compileStep(
        step,
        name,
        plugin.params,
        plugin.formatted,
      );
      const key = JSON.stringify([step.op, args, step.loop, step.multiple]);
      let id = ids.get(key);
      if (id === undefined) ids.set(key, (id = ids.size));
      // Object literals, not spreads: spread copies make slower objects on this hot path.
      return { step, args, resolve, resolveInLoop, loop, forceStringsInLoop, plugin, inverted, id };
    });
    const actions = rule.actions.map((step): CompiledAction => {
      const plugin = ACTIONS.get(step.op);
      if (!plugin) throw new RuleError(`unknown action ${step.op}`);
      const { args, resolve, resolveInLoop, loop } = compileStep(
        step,
        step.op,
        plugin.params,
        plugin.formatted,
      );
      return { step, args, resolve, resolveInLoop, loop, forceStringsInLoop: false, plugin };
    });
    return { rule, mask, conditions, actions };
  } catch (error) {
    return { rule, mask, conditions: [], actions: [], error };
  }
}

class Stop extends Error {}

/** Ordered and compiled once, so running an event costs only the matching. */
export class RuleSet {
  private readonly byPhase = new Map<InspectionPhase, CompiledRule[]>();
  private readonly conditionCount: number;

  constructor(rules: readonly RuleDefinition[], options: EngineOptions) {
    const ids = new Map<string, number>();
    for (const rule of orderRules(rules)) {
      const list = this.byPhase.get(rule.phase) ?? [];
      list.push(compile(rule, ids, options));
      this.byPhase.set(rule.phase, list);
    }
    this.conditionCount = ids.size;
  }

  /** A `fail` or a rule error stops the run. */
  run(phase: InspectionPhase, data: InspectionData): EngineResult {
    const run = new Run(phase, data, this.conditionCount);
    const scope = data.scope ?? null;
    for (const compiled of this.byPhase.get(phase) ?? []) {
      if (compiled.rule.scope !== null && compiled.rule.scope !== scope) continue;
      if (!run.apply(compiled)) break;
    }
    return run.result;
  }
}

class Run implements ActionContext, Reader {
  readonly result: EngineResult;
  readonly node: JsonObject | null;
  readonly ports: JsonObject[];
  readonly pluginData: JsonObject;
  /** Working copies, so later rules (and loop iterations) see earlier changes. */
  readonly scope: Scope;
  mask = true;
  private rule!: RuleLike;
  /** Per condition id and mask (`id * 2 + mask`): the data generation of a result; any write starts a new one. */
  private readonly known: Uint32Array;
  private readonly results: Uint8Array;
  private generation = 1;
  private readonly maskedCopies = new Map<object, unknown>();
  private readonly stableMaskedCopies = new Map<object, unknown>();

  constructor(
    readonly phase: InspectionPhase,
    data: InspectionData,
    conditionCount: number,
  ) {
    this.known = new Uint32Array(conditionCount * 2);
    this.results = new Uint8Array(conditionCount * 2);
    const early = phase === 'early';
    this.node = early ? null : cloneJson(data.node ?? null);
    this.ports = early ? [] : cloneJson(data.ports ?? []);
    this.pluginData = cloneJson(data.plugin_data ?? {});
    const inventory = data.inventory ?? {};
    this.scope = early
      ? { inventory, plugin_data: this.pluginData }
      : {
          node: this.node ?? undefined,
          ports: this.ports,
          port_groups: cloneJson(data.port_groups ?? []),
          inventory,
          plugin_data: this.pluginData,
        };
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

  apply(compiled: CompiledRule): boolean {
    const { rule } = compiled;
    this.rule = rule;
    this.mask = compiled.mask;
    // So a failure can name its check (a sensitive rule's names only that).
    let where = '';
    try {
      if (compiled.error) throw compiled.error;
      for (let i = 0; i < compiled.conditions.length; i++) {
        where = ` at conditions[${i}] (${compiled.conditions[i].step.op})`;
        if (!this.condition(compiled.conditions[i])) return true;
      }
      this.result.matched.push({
        uuid: rule.uuid,
        description: rule.description,
        sensitive: rule.sensitive,
      });
      for (let i = 0; i < compiled.actions.length; i++) {
        where = ` at actions[${i}] (${compiled.actions[i].step.op})`;
        this.action(compiled.actions[i]);
      }
      return true;
    } catch (error) {
      if (error instanceof Stop) return false;
      this.result.failure = rule.sensitive
        ? `Rule ${rule.uuid} failed${where}.`
        : `Rule ${rule.uuid}${rule.description ? ` (${rule.description})` : ''} failed${where}: ${
            error instanceof RuleError ? error.message : 'unexpected error'
          }`;
      return false;
    }
  }

  masked(value: object, stable: boolean): unknown {
    const copies = stable ? this.stableMaskedCopies : this.maskedCopies;
    let copy = copies.get(value);
    if (copy === undefined) copies.set(value, (copy = maskSecrets(value)));
    return copy;
  }

  /** A copy: actions may change the list they loop over. A dict is one item, as in Ironic. */
  private loopItems(compiled: CompiledStep, missing: MissingKeys): unknown[] | null {
    const { loop } = compiled;
    if (loop === null) return null;
    const items = loop instanceof CompiledArgument ? resolveArgument(loop, this, missing) : loop;
    if (isPlainObject(items)) return Object.keys(items).length ? [items] : null;
    if (!Array.isArray(items))
      throw new RuleError(`loop must give a list or a dict, got ${typeName(items)}`);
    if (items.length > MAX_LOOP_ITEMS)
      throw new RuleError(`loop over more than ${MAX_LOOP_ITEMS} items`);
    return items.length ? items.slice() : null;
  }

  private args(compiled: CompiledStep, missing: MissingKeys): BoundArgs {
    return compiled.resolve
      ? (resolveArgument(compiled.resolve, this, missing) as BoundArgs)
      : compiled.args;
  }

  /** As Ironic: a result that holds a template again (`{inventory[bmc_address]}`) is interpolated once more. */
  private loopArgs(compiled: CompiledStep, missing: MissingKeys): BoundArgs {
    const args = compiled.resolveInLoop
      ? { ...(resolveArgument(compiled.resolveInLoop, this, missing) as BoundArgs) }
      : { ...compiled.args };
    for (const [name, value] of Object.entries(args)) {
      if (
        typeof value !== 'string' ||
        typeof compiled.args[name] !== 'string' ||
        !value.includes('{')
      )
        continue;
      const again = compileLenient(value);
      if (again) args[name] = resolveArgument(again, this, missing);
    }
    if (compiled.forceStringsInLoop) args.force_strings = true;
    return args;
  }

  private condition(compiled: CompiledCondition): boolean {
    const slot = compiled.id * 2 + (this.mask ? 1 : 0);
    if (this.known[slot] === this.generation) return this.results[slot] === 1;
    const result = this.evaluate(compiled);
    this.known[slot] = this.generation;
    this.results[slot] = result ? 1 : 0;
    return result;
  }

  private changed(): void {
    this.generation++;
    this.maskedCopies.clear();
  }

  private evaluate(compiled: CompiledCondition): boolean {
    const { step, plugin, inverted } = compiled;
    const items = this.loopItems(compiled, 'null');
    if (!items) return plugin.test(this.args(compiled, 'null')) !== inverted;
    const withItem = (item: unknown) => {
      this.scope.item = item;
      return plugin.test(this.loopArgs(compiled, 'null')) !== inverted;
    };
    let result: boolean;
    switch (step.multiple ?? 'any') {
      case 'all':
        result = items.every(withItem);
        break;
      case 'first':
        result = withItem(items[0]);
        break;
      case 'last':
        result = withItem(items[items.length - 1]);
        break;
      default:
        result = items.some(withItem);
    }
    this.scope.item = undefined;
    return result;
  }

  private action(compiled: CompiledAction): void {
    const { step, plugin } = compiled;
    if (this.phase === 'early' && !plugin.supportsEarly)
      throw new RuleError(`${step.op} cannot run in the early phase`);
    const items = this.loopItems(compiled, 'error');
    if (!items) {
      plugin.run(this, this.args(compiled, 'error'));
      if (this.result.failure !== null) throw new Stop();
      return;
    }
    for (const item of items) {
      this.scope.item = item;
      plugin.run(this, this.loopArgs(compiled, 'error'));
      if (this.result.failure !== null) throw new Stop();
    }
    this.scope.item = undefined;
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
      message: this.rule.sensitive
        ? `Rule ${this.rule.uuid} logged a message (hidden: the rule is sensitive).`
        : message,
    });
  }

  fail(message: string): void {
    this.result.failure = this.rule.sensitive
      ? `Inspection failed by rule ${this.rule.uuid}.`
      : message;
  }
}

function applyOperation(target: JsonObject, operation: JsonPatchOperation) {
  const tokens = parsePointer(operation.path);
  if (operation.op === 'remove') removeAt(target, tokens);
  else setAt(target, tokens, cloneJson(operation.value));
}

function operations(list: RecordedOperation[], hide: boolean): JsonPatchOperation[] {
  return list.map(({ operation, sensitive }) =>
    hide && sensitive && 'value' in operation ? { ...operation, value: MASK } : operation,
  );
}

function view(result: EngineResult, hide: boolean): EvaluateInspectionRulesResponse {
  const pluginData =
    hide && result.sensitivePluginDataPaths.length
      ? cloneJson(result.pluginData)
      : result.pluginData;
  if (hide) {
    for (const tokens of result.sensitivePluginDataPaths) {
      if (getAt(pluginData, tokens) !== undefined) setAt(pluginData, tokens, MASK, false);
    }
  }
  return {
    matched_rules: result.matched.map(({ uuid, description }) => ({ uuid, description })),
    node_patch: operations(result.nodePatch, hide),
    port_patches: Object.fromEntries(
      [...result.portPatches].map(([port, list]) => [port, operations(list, hide)]),
    ),
    plugin_data: pluginData,
    failure: result.failure,
  };
}

/** For people (the `:evaluate` API). */
export function publicView(result: EngineResult): EvaluateInspectionRulesResponse {
  return view(result, true);
}

/** For the machinery that applies the changes. */
export function fullView(result: EngineResult): EvaluateInspectionRulesResponse {
  return view(result, false);
}
