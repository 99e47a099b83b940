export * from './sleeper';
export * from './background-loop';
export * from './backoff';
