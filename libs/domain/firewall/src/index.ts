export * from './model';
export * from './validation';
export * from './engine';
export * from './analysis';
export * from './diff';
