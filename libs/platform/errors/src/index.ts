export * from './to-status';
export * from './http-error.filter';
export * from './rpc-error.filter';
export * from './error.filter';
export * from './field-violations';
