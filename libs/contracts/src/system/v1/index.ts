import type { ContractPackage, ServiceName } from '../../packages';

/**
 * `system.v1`: what every service says about itself. The gateway gathers it over NATS
 * request/reply and serves it at `GET /v1/services`.
 */
export const SYSTEM_V1: ContractPackage = { name: 'system.v1', version: '1.1.0' };

/**
 * Feature of `system.v1` (1.1.0): a client that declares it in `Client-Features` gets each
 * service's `startTime`, so it can tell a restart from a long uptime.
 */
export const START_TIME_FEATURE = 'dev.policy-rollout.system.start-time';

/** Request/reply subject of a service's info endpoint. */
export function serviceInfoSubject(service: ServiceName): string {
  return `system.v1.${service}.info`;
}

export interface ServiceInfo {
  name: ServiceName;
  /** The service's build version (semver). */
  version: string;
  /** Contract packages the service speaks, with their semantic versions and features. */
  contracts: ContractPackage[];
  /**
   * When the service process started (RFC 3339); only for clients that declared the
   * `dev.policy-rollout.system.start-time` feature.
   * @format date-time
   */
  startTime?: string;
}

/** One row of `GET /v1/services`: a service that answered, or why it did not. */
export interface ServiceStatus {
  name: ServiceName;
  /** `SERVING` when it answered, otherwise the canonical code of the failure. */
  state: 'SERVING' | 'UNAVAILABLE' | 'DEADLINE_EXCEEDED' | 'INTERNAL';
  version?: string;
  contracts?: ContractPackage[];
  /**
   * As in ServiceInfo: only for clients that declared `dev.policy-rollout.system.start-time`.
   * @format date-time
   */
  startTime?: string;
}

export interface ListServicesResponse {
  services: ServiceStatus[];
}
