export * from './leases';
export * from './messages';
export * from './blazar';
