import { PREVIEW_LOG_PREFIX } from '@rollout/contracts';
import { createHash } from 'node:crypto';
import type {
  ExperimentDomainEvent,
  ExperimentState,
  PolicyDomainEvent,
  PolicyState,
} from './events';

/** Opaque, and different for every version of a resource (AIP-154). */
export function etagOf(name: string, version: number): string {
  return createHash('sha256').update(`${name}@${version}`).digest('base64url').slice(0, 22);
}

export const initialPolicy = (name: string): PolicyState => ({
  name,
  version: 0,
  exists: false,
  content: { rules: [] },
});
export const initialExperiment = (name: string): ExperimentState => ({
  name,
  version: 0,
  exists: false,
  content: { rules: [] },
  annotations: {},
});

export function evolvePolicy(state: PolicyState, event: PolicyDomainEvent): PolicyState {
  const version = state.version + 1;
  switch (event.type) {
    case 'PolicyCreated':
      return {
        ...state,
        version,
        exists: true,
        content: event.data.content,
        createTime: event.data.time,
        updateTime: event.data.time,
      };
    case 'PolicyUpdated':
      return { ...state, version, content: event.data.content, updateTime: event.data.time };
    case 'PolicyDeleted':
      return { ...state, version, exists: false };
  }
}

export function evolveExperiment(
  state: ExperimentState,
  event: ExperimentDomainEvent,
): ExperimentState {
  const version = state.version + 1;
  switch (event.type) {
    case 'ExperimentCreated':
      return {
        ...state,
        version,
        exists: true,
        policyName: event.data.policyName,
        content: event.data.content,
        annotations: event.data.annotations,
        conditions: event.data.conditions,
        createTime: event.data.time,
        updateTime: event.data.time,
      };
    case 'ExperimentUpdated': {
      const preview =
        event.data.suspended && state.preview
          ? { ...state.preview, state: 'SUSPENDED' as const, stopTime: event.data.time }
          : state.preview;
      return {
        ...state,
        version,
        content: event.data.content,
        annotations: event.data.annotations,
        conditions: event.data.conditions,
        preview,
        updateTime: event.data.time,
      };
    }
    case 'PreviewStarted':
      return {
        ...state,
        version,
        preview: {
          ...state.preview,
          state: 'ACTIVE',
          logPrefix: PREVIEW_LOG_PREFIX,
          startTime: event.data.time,
        },
        updateTime: event.data.time,
      };
    case 'PreviewStopped':
      return {
        ...state,
        version,
        preview: {
          logPrefix: PREVIEW_LOG_PREFIX,
          ...state.preview,
          state: 'SUSPENDED',
          stopTime: event.data.time,
        },
        updateTime: event.data.time,
      };
    case 'ExperimentCommitted':
    case 'ExperimentDeleted':
      return { ...state, version, exists: false };
  }
}
