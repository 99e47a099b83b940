export * from './bus-permissions';
