import {
  ExperimentEvent,
  ExperimentName,
  FirewallPolicy,
  FirewallPolicyExperiment,
  PolicyEvent,
  PolicyName,
  formatPolicyKey,
  parseExperimentName,
  parsePolicyName,
  policyPreviewLogSubject,
  previewLogSubject,
} from '@rollout/contracts';
import { CompiledPolicy, compilePolicy } from '@rollout/domain/firewall';
import { recordKeys } from './records';
import type { ActiveExperiment, HeldExperiment, HeldVersions, PolicyView } from './views';

interface Held<S> {
  version: number;
  state?: S;
  compiled?: CompiledPolicy;
  lastEvent?: string;
  /** Cleared when its policy changes. */
  previewedEtag?: string;
}

export type DomainEvent = PolicyEvent | ExperimentEvent;

export interface ApplyResult {
  applied: boolean;
  problems: string[];
}

/**
 * Idempotent and order-tolerant: an event not above its aggregate's held version changes nothing.
 * Policies are compiled when they change, never on the traffic path.
 */
export class PreviewState {
  private readonly policies = new Map<string, Held<FirewallPolicy>>();
  private readonly experiments = new Map<string, Held<FirewallPolicyExperiment>>();
  private readonly experimentsOf = new Map<string, Set<string>>();
  private readonly views = new Map<string, PolicyView>();

  constructor(
    private readonly compile: (policy: {
      rules?: FirewallPolicy['rules'];
    }) => CompiledPolicy = compilePolicy,
  ) {}

  apply(event: DomainEvent): ApplyResult {
    if (typeof event?.type !== 'string' || typeof event.version !== 'number')
      return { applied: false, problems: [] };
    return event.type.startsWith('Policy')
      ? this.applyPolicy(event as PolicyEvent)
      : this.applyExperiment(event as ExperimentEvent);
  }

  viewForTraffic(key: string): PolicyView | undefined {
    return this.views.get(key);
  }

  viewOf(policyName: string): PolicyView | undefined {
    const name = parsePolicyName(policyName);
    return name ? this.views.get(formatPolicyKey(name)) : undefined;
  }

  hasExperiment(name: string): boolean {
    return this.experiments.get(name)?.state !== undefined;
  }

  experimentOf(name: string): HeldExperiment | undefined {
    const held = this.experiments.get(name);
    if (!held?.state) return undefined;
    const policy = parseExperimentName(name)?.policyName;
    return {
      state: held.state,
      lastEvent: held.lastEvent,
      liveEtag: policy ? this.policies.get(policy)?.state?.etag : undefined,
      previewedEtag: held.previewedEtag,
    };
  }

  autoStopping(): string[] {
    const names: string[] = [];
    for (const [name, held] of this.experiments) {
      if (
        held.state?.previewMetadata?.state === 'ACTIVE' &&
        (held.state.stopAfter || held.state.breaker)
      )
        names.push(name);
    }
    return names;
  }

  get counts(): { policies: number; experiments: number; active: number } {
    let active = 0;
    for (const view of this.views.values()) active += view.active.length;
    let experiments = 0;
    for (const held of this.experiments.values()) if (held.state) experiments++;
    return { policies: this.views.size, experiments, active };
  }

  /** Without a version (a key deleted by hand) it is gone whatever version is held. */
  applyDeletion(kind: 'policy' | 'experiment', name: string, version?: number): ApplyResult {
    const at = Number.isSafeInteger(version) ? version : undefined;
    return kind === 'policy'
      ? this.setPolicy(name, at, undefined)
      : this.setExperiment(name, at, undefined);
  }

  private applyPolicy(event: PolicyEvent): ApplyResult {
    return this.setPolicy(
      event.subject,
      event.version,
      event.type === 'PolicyDeleted' ? undefined : event.state,
    );
  }

  private applyExperiment(event: ExperimentEvent): ApplyResult {
    const gone = event.type === 'ExperimentCommitted' || event.type === 'ExperimentDeleted';
    return this.setExperiment(
      event.subject,
      event.version,
      gone ? undefined : event.state,
      event.type,
    );
  }

  private setPolicy(
    subject: string,
    version: number | undefined,
    state: FirewallPolicy | undefined,
  ): ApplyResult {
    const name = parsePolicyName(subject);
    if (!name)
      return {
        applied: false,
        problems: [`policy event for a malformed name "${String(subject).slice(0, 200)}"`],
      };
    const held = this.policies.get(name.name);
    if (held && version !== undefined && version <= held.version)
      return { applied: false, problems: [] };
    this.policies.set(name.name, { version: version ?? held?.version ?? 0, state });
    return { applied: true, problems: this.rebuild(name) };
  }

  private setExperiment(
    subject: string,
    version: number | undefined,
    state: FirewallPolicyExperiment | undefined,
    lastEvent?: string,
  ): ApplyResult {
    const name = parseExperimentName(subject);
    if (!name)
      return {
        applied: false,
        problems: [`experiment event for a malformed name "${String(subject).slice(0, 200)}"`],
      };
    const held = this.experiments.get(name.name);
    if (held && version !== undefined && version <= held.version)
      return { applied: false, problems: [] };
    const changed = lastEvent === 'ExperimentCreated' || lastEvent === 'ExperimentUpdated';
    const previewedEtag =
      state?.previewMetadata?.state === 'ACTIVE'
        ? state.etag
        : changed
          ? undefined
          : held?.previewedEtag;
    this.experiments.set(name.name, {
      version: version ?? held?.version ?? 0,
      state,
      lastEvent,
      previewedEtag,
    });
    let siblings = this.experimentsOf.get(name.policyName);
    if (state) {
      if (!siblings) this.experimentsOf.set(name.policyName, (siblings = new Set()));
      siblings.add(name.name);
    } else {
      siblings?.delete(name.name);
    }
    return {
      applied: true,
      problems: this.rebuild(parsePolicyName(name.policyName) as PolicyName),
    };
  }

  versionsOf(experimentName: string): HeldVersions | undefined {
    const experiment = this.experiments.get(experimentName)?.state;
    const name = parseExperimentName(experimentName);
    const live = name ? this.policies.get(name.policyName)?.state : undefined;
    if (!experiment || !live) return undefined;
    return {
      experimentEtag: experiment.etag,
      experimentRules: experiment.firewallPolicy?.rules ?? [],
      liveEtag: live.etag,
      liveRules: live.rules ?? [],
    };
  }

  private rebuild(policy: PolicyName): string[] {
    const key = formatPolicyKey(policy);
    const live = this.policies.get(policy.name);
    const problems: string[] = [];
    if (!live?.state) {
      this.views.delete(key);
      return problems;
    }
    try {
      live.compiled ??= this.compile(live.state);
    } catch (error) {
      this.views.delete(key);
      return [`live policy ${policy.name} does not compile: ${describe(error)}`];
    }
    const active: ActiveExperiment[] = [];
    for (const experimentName of [...(this.experimentsOf.get(policy.name) ?? [])].sort()) {
      const held = this.experiments.get(experimentName) as Held<FirewallPolicyExperiment>;
      const state = held.state;
      if (state?.previewMetadata?.state !== 'ACTIVE') {
        held.compiled = undefined;
        continue;
      }
      try {
        held.compiled ??= this.compile(state.firewallPolicy ?? { rules: [] });
      } catch (error) {
        problems.push(`experiment ${experimentName} does not compile: ${describe(error)}`);
        continue;
      }
      const name = parseExperimentName(experimentName) as ExperimentName;
      active.push({
        name: experimentName,
        etag: state.etag,
        logSubject: previewLogSubject(name.project, name.location, name.policy, name.experiment),
        policy: held.compiled,
        liveEtag: live.state.etag,
        keys: recordKeys(experimentName, state.etag, policy.name, live.state.etag),
      });
    }
    this.views.set(key, {
      name: policy.name,
      etag: live.state.etag,
      live: live.compiled,
      logSubject: policyPreviewLogSubject(policy.project, policy.location, policy.policy),
      active,
    });
    return problems;
  }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));
