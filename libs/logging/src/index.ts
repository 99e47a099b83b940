export * from './request-id';
export * from './logging.module';
