export type { BusProvisionOptions, ProvisionedBus } from './provision';
export {
  busProvisionOptions,
  provisionBus,
  provisionFromEnv,
  provisioningReport,
} from './provision';
export { declareJetStream } from './declare-jetstream';
export type { RemovedBus } from './deprovision';
export { removeBus } from './deprovision';
export type { BusRole, BusUser, NatsPermissions } from './bus-permissions';
export { busPermissions } from './bus-permissions';
export { natsAuthorizationConfig } from './authorization-config';
