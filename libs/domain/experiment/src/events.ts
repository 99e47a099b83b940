import type {
  CommitEvidenceRecord,
  CommitReview,
  PolicyContent,
  PreviewMetadata,
} from '@rollout/contracts';
import type { PreviewConditions } from './preview-conditions';

/** Since experiment.v1 1.5.0; without it, a plain update, or a commit when `committedExperiment` is set. */
export type PolicyUpdateSource =
  | ({
      kind: 'commit';
      experimentEtag: string;
      /** Since 1.6.0. */
      reason?: string;
      annotations?: Record<string, string>;
      review?: CommitReview;
    } & CommitEvidenceRecord)
  | { kind: 'rollback'; rolledBackTo: string; reason?: string };

export type PolicyDomainEvent =
  | { type: 'PolicyCreated'; data: { content: PolicyContent; time: string } }
  | {
      type: 'PolicyUpdated';
      data: {
        content: PolicyContent;
        time: string;
        committedExperiment?: string;
        source?: PolicyUpdateSource;
      };
    }
  | { type: 'PolicyDeleted'; data: { time: string } };

export type ExperimentDomainEvent =
  | {
      type: 'ExperimentCreated';
      data: {
        policyName: string;
        content: PolicyContent;
        annotations: Record<string, string>;
        time: string;
        conditions?: PreviewConditions;
      };
    }
  | {
      type: 'ExperimentUpdated';
      data: {
        content: PolicyContent;
        annotations: Record<string, string>;
        time: string;
        suspended: boolean;
        conditions?: PreviewConditions;
      };
    }
  | { type: 'PreviewStarted'; data: { time: string; reason?: string } }
  | { type: 'PreviewStopped'; data: { time: string; reason?: string } }
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
  /** experiment.v1 1.4.0. */
  conditions?: PreviewConditions;
  preview?: PreviewMetadata;
  createTime?: string;
  updateTime?: string;
}
