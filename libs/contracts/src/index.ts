export * from './status';
export * from './packages';
export * from './system/v1';
