import type { InspectionPhase, JsonPatchOperation } from '@rollout/contracts';
import type { BoundArgs, ParamSpec } from '../params';
import type { JsonObject } from '../values';

export type LogLevel = 'debug' | 'info' | 'warning' | 'error' | 'critical';

export interface ActionContext {
  readonly phase: InspectionPhase;
  /** null in `early`. Change it only through `patchNode`. */
  readonly node: JsonObject | null;
  readonly ports: JsonObject[];
  /** Change it only through the plugin data methods. */
  readonly pluginData: JsonObject;
  patchNode(operation: JsonPatchOperation): void;
  patchPort(port: JsonObject, operation: JsonPatchOperation): void;
  /** Hidden in HTTP output for sensitive rules. */
  wrotePluginData(tokens: string[]): void;
  log(level: LogLevel, message: string): void;
  fail(message: string): void;
}

/** Adding an action is one file plus one line in the registry. */
export interface ActionPlugin {
  name: string;
  params: ParamSpec[];
  /** Ironic's FORMATTED_ARGS; outside a loop the others are used as written, `{…}` included. */
  formatted: readonly string[];
  supportsEarly: boolean;
  run(context: ActionContext, args: BoundArgs): void;
}
