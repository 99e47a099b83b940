import type { FirewallPolicyExperiment, FirewallRule } from '@rollout/contracts';
import type { CompiledPolicy } from '@rollout/domain/firewall';
import type { RecordKeys } from './records';

/** An experiment being previewed, compiled and ready to evaluate, against one live policy version. */
export interface ActiveExperiment {
  /** The experiment's resource name. */
  readonly name: string;
  readonly etag: string;
  /** Where its log records go (preview.v1, not namespaced). */
  readonly logSubject: string;
  readonly policy: CompiledPolicy;
  /** The live policy's etag: with the experiment's, the configuration its records belong to. */
  readonly liveEtag: string;
  /** Precomputed per configuration, so that a record costs no lookups (see records.ts). */
  readonly keys: RecordKeys;
}

/** What one traffic event of a live policy is evaluated against. Replaced, never mutated. */
export interface PolicyView {
  /** The live policy's resource name. */
  readonly name: string;
  readonly etag: string;
  readonly live: CompiledPolicy;
  /** Where the policy's preview log goes (policyPreviewLogSubject, not namespaced). */
  readonly logSubject: string;
  /** The ACTIVE experiments of the policy, by name. */
  readonly active: readonly ActiveExperiment[];
}

/** The versions of an experiment and its live policy the evaluator holds now. */
export interface HeldVersions {
  experimentEtag: string;
  experimentRules: readonly FirewallRule[];
  liveEtag: string;
  liveRules: readonly FirewallRule[];
}

/** An experiment as the evaluator holds it, for its report's readiness and its auto-stop. */
export interface HeldExperiment {
  state: FirewallPolicyExperiment;
  /** The type of its last event: PreviewStopped means the newest counts are of its current policy. */
  lastEvent?: string;
  /** The etag of its live policy now, when that policy is held. */
  liveEtag?: string;
  /**
   * Its etag while it was last ACTIVE, when this evaluator saw that (not after a restart that
   * found it stopped); cleared when it is created or updated again.
   */
  previewedEtag?: string;
}
