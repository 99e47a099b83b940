export * from './model';
export * from './validation';
