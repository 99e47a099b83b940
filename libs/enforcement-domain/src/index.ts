export * from './model';
export * from './chain';
export * from './filters';
export * from './external-service';
export * from './config';
export * from './time';
export * from './lease';
export * from './blazar';
