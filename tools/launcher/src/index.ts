export { LaunchError, launch } from './launcher';
export type { LaunchOptions, Log, RunningSystem } from './launcher';
export * from './settings';
export { consoleOutput } from './service-logs';
export type { ConsoleOutput } from './service-logs';
export { renderBusAuthorization, BUS_USERS_FILE } from './bus-authorization';
export { SERVICE_SCHEMAS, removeDatabase, serviceRoleName } from './postgres';
export {
  DEV_SECRETS_DIR,
  KUBERNETES_DATABASE_ROLES,
  devSecretFiles,
  writeDevSecrets,
} from './dev-secrets';
