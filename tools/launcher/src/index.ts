export { LaunchError, launch } from './launcher';
export type { LaunchOptions, Log, RunningSystem } from './launcher';
export * from './settings';
