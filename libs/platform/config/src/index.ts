export * from './load-config';
export * from './fields';
export * from './base-config';
export * from './local-instance';
