import type { ContractPackage, ServiceName } from '../../packages';

/**
 * `system.v1`: what every service says about itself. The gateway gathers it over NATS
 * request/reply and serves it at `GET /v1/services`.
 */
export const SYSTEM_V1: ContractPackage = { name: 'system.v1', version: '1.0.0' };

/** Request/reply subject of a service's info endpoint. */
export function serviceInfoSubject(service: ServiceName): string {
  return `system.v1.${service}.info`;
}

export interface ServiceInfo {
  name: ServiceName;
  /** The service's build version (semver). */
  version: string;
  /** Contract packages the service speaks, with their semantic versions. */
  contracts: ContractPackage[];
}

/** One row of `GET /v1/services`: a service that answered, or why it did not. */
export interface ServiceStatus {
  name: ServiceName;
  /** `SERVING` when it answered, otherwise the canonical code of the failure. */
  state: 'SERVING' | 'UNAVAILABLE' | 'DEADLINE_EXCEEDED' | 'INTERNAL';
  version?: string;
  contracts?: ContractPackage[];
}

export interface ListServicesResponse {
  services: ServiceStatus[];
}
