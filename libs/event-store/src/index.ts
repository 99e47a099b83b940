export * from './event-store';
export * from './outbox-relay';
export * from './migration';
export * from './state-cache';
