export * from './model';
export * from './validation';
export * from './engine';
