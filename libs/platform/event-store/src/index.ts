export * from './event-store';
export * from './command-handler';
export * from './outbox-relay';
export * from './migration';
export * from './state-cache';
