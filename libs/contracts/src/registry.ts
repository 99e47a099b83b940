import { ADAPTER_V1_PACKAGE } from './adapter/v1/package';
import { EXPERIMENT_V1_PACKAGE } from './experiment/v1/package';
import { ENFORCEMENT_V1_PACKAGE } from './enforcement/v1/package';
import { INSPECTION_V1_PACKAGE } from './inspection/v1/package';
import {
  type ContractPackage,
  type ContractPackageDefinition,
  contractPackageOf,
} from './packages';
import { PREVIEW_V1_PACKAGE } from './preview/v1/package';
import { SYSTEM_V1_PACKAGE } from './system/v1/package';
import { TRAFFIC_V1_PACKAGE } from './traffic/v1/package';

/** For the services at runtime; the contracts tooling finds packages by itself. */
export const CONTRACT_PACKAGE_DEFINITIONS: readonly ContractPackageDefinition[] = [
  SYSTEM_V1_PACKAGE,
  EXPERIMENT_V1_PACKAGE,
  TRAFFIC_V1_PACKAGE,
  PREVIEW_V1_PACKAGE,
  ENFORCEMENT_V1_PACKAGE,
  INSPECTION_V1_PACKAGE,
  ADAPTER_V1_PACKAGE,
];

export const CONTRACT_PACKAGES: readonly ContractPackage[] =
  CONTRACT_PACKAGE_DEFINITIONS.map(contractPackageOf);

export function contractDefinition(name: string): ContractPackageDefinition | undefined {
  return CONTRACT_PACKAGE_DEFINITIONS.find((definition) => definition.name === name);
}
