export * from './bus-permissions';
export * from './authorization-config';
