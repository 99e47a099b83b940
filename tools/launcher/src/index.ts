export * from './launcher';
export * from './settings';
