import type { FirewallPolicyExperiment, FirewallRule } from '@rollout/contracts';
import type { CompiledPolicy } from '@rollout/domain/firewall';
import type { RecordKeys } from './records';

export interface ActiveExperiment {
  readonly name: string;
  readonly etag: string;
  /** Not namespaced. */
  readonly logSubject: string;
  readonly policy: CompiledPolicy;
  readonly liveEtag: string;
  /** So that a record costs no lookups. */
  readonly keys: RecordKeys;
}

/** Replaced, never mutated. */
export interface PolicyView {
  readonly name: string;
  readonly etag: string;
  readonly live: CompiledPolicy;
  /** Not namespaced. */
  readonly logSubject: string;
  readonly active: readonly ActiveExperiment[];
}

export interface HeldVersions {
  experimentEtag: string;
  experimentRules: readonly FirewallRule[];
  liveEtag: string;
  liveRules: readonly FirewallRule[];
}

export interface HeldExperiment {
  state: FirewallPolicyExperiment;
  /** PreviewStopped means the newest counts are of its current policy. */
  lastEvent?: string;
  liveEtag?: string;
  /** Unknown after a restart that found it stopped; cleared by an update. */
  previewedEtag?: string;
}
