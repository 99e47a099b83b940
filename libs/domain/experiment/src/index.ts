export * from './names';
export * from './events';
export * from './evolve';
export * from './decide';
export * from './commands';
export * from './views';
export * from './preview-conditions';
