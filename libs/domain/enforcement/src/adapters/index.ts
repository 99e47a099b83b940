export * from './wire';
export * from './check-cache';
export * from './quota';
export * from './config';
export * from './adapter-filter';
