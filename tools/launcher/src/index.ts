export { LaunchError, launch } from './launcher';
export type { LaunchOptions, Log, RunningSystem } from './launcher';
export * from './settings';
export { renderBusAuthorization, BUS_USERS_FILE } from './bus-authorization';
