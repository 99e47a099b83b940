export * from './sleeper';
export * from './background-loop';
