import type { InspectionPhase, JsonPatchOperation } from '@rollout/contracts';
import type { BoundArgs, ParamSpec } from '../params';
import type { JsonObject } from '../values';

export type LogLevel = 'debug' | 'info' | 'warning' | 'error' | 'critical';

/** What an action may read and change while a phase's rules run. */
export interface ActionContext {
  readonly phase: InspectionPhase;
  /** The node's working copy (null in `early`). Change it only through `patchNode`. */
  readonly node: JsonObject | null;
  readonly ports: JsonObject[];
  /** The working plugin data; change it only through the plugin data methods. */
  readonly pluginData: JsonObject;
  patchNode(operation: JsonPatchOperation): void;
  patchPort(port: JsonObject, operation: JsonPatchOperation): void;
  /** Records that a plugin data path was written (hidden in HTTP output for sensitive rules). */
  wrotePluginData(tokens: string[]): void;
  log(level: LogLevel, message: string): void;
  fail(message: string): void;
}

/**
 * An action plugin: its name, its declared parameters (validated when a rule is saved) and
 * whether it may run in `early`, where there is no node. Adding an action is one file plus
 * one line in the registry.
 */
export interface ActionPlugin {
  name: string;
  params: ParamSpec[];
  /**
   * The arguments Ironic interpolates (its FORMATTED_ARGS); outside a loop the others are
   * used as written, `{…}` included. In a loop Ironic interpolates every argument.
   */
  formatted: readonly string[];
  supportsEarly: boolean;
  run(context: ActionContext, args: BoundArgs): void;
}
