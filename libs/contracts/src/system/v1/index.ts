import type { ContractPackage, ServiceName } from '../../packages';

/** `system.v1`: what every service says about itself, served at `GET /v1/services`. */
export const SYSTEM_V1: ContractPackage = { name: 'system.v1', version: '1.1.0' };

/** Since 1.1.0: `startTime`, so a client can tell a restart from a long uptime. */
export const START_TIME_FEATURE = 'dev.policy-rollout.system.start-time';

export function serviceInfoSubject(service: ServiceName): string {
  return `system.v1.${service}.info`;
}

export interface ServiceInfo {
  name: ServiceName;
  /** The build's semver. */
  version: string;
  contracts: ContractPackage[];
  /**
   * Only for clients that declared `dev.policy-rollout.system.start-time`.
   * @format date-time
   */
  startTime?: string;
}

export interface ServiceStatus {
  name: ServiceName;
  /** Otherwise the failure's canonical code. */
  state: 'SERVING' | 'UNAVAILABLE' | 'DEADLINE_EXCEEDED' | 'INTERNAL';
  version?: string;
  contracts?: ContractPackage[];
  /**
   * Only for clients that declared `dev.policy-rollout.system.start-time`.
   * @format date-time
   */
  startTime?: string;
}

export interface ListServicesResponse {
  services: ServiceStatus[];
}
