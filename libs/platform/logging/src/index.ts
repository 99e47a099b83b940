export * from './request-id';
export * from './logging.module';
export * from './rpc-request-logging';
