export * from './status';
export * from './packages';
export * from './system/v1';
export * from './inspection/v1';
export * from './experiment/v1';
export * from './traffic/v1';
export * from './preview/v1';
export * from './enforcement/v1';
