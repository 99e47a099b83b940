/**
 * A contract package: the major is part of its name (`system.v1`), the semantic version
 * says what changed within that major. Alpha packages (`v2alpha`) live in their own lib.
 */
export interface ContractPackage {
  /** e.g. `system.v1` */
  name: string;
  /** semver, e.g. `1.0.0` */
  version: string;
}

/** The services reached over NATS request/reply, in the order the gateway lists them. */
export const BACKEND_SERVICES = [
  'experiment-service',
  'evaluator',
  'enforcement-service',
  'inspection-rules-service',
] as const;

export type BackendService = (typeof BACKEND_SERVICES)[number];
export type ServiceName = 'gateway' | BackendService;
