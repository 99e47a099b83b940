export * from './security';
export * from './topology';
