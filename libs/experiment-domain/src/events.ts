import type { PolicyContent, PreviewMetadata } from '@rollout/contracts';

/** What the event store keeps for each aggregate; the domain's whole truth. */
export type PolicyDomainEvent =
  | { type: 'PolicyCreated'; data: { content: PolicyContent; time: string } }
  | { type: 'PolicyUpdated'; data: { content: PolicyContent; time: string; committedExperiment?: string } }
  | { type: 'PolicyDeleted'; data: { time: string } };

export type ExperimentDomainEvent =
  | { type: 'ExperimentCreated'; data: { policyName: string; content: PolicyContent; annotations: Record<string, string>; time: string } }
  | { type: 'ExperimentUpdated'; data: { content: PolicyContent; annotations: Record<string, string>; time: string; suspended: boolean } }
  | { type: 'PreviewStarted'; data: { time: string } }
  | { type: 'PreviewStopped'; data: { time: string } }
  | { type: 'ExperimentCommitted'; data: { time: string } }
  | { type: 'ExperimentDeleted'; data: { time: string } };

export interface PolicyState {
  name: string;
  version: number;
  exists: boolean;
  content: PolicyContent;
  createTime?: string;
  updateTime?: string;
}

export interface ExperimentState {
  name: string;
  version: number;
  exists: boolean;
  policyName?: string;
  content: PolicyContent;
  annotations: Record<string, string>;
  preview?: PreviewMetadata;
  createTime?: string;
  updateTime?: string;
}
