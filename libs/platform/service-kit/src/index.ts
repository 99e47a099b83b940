export * from './platform-modules';
export * from './service-info';
export * from './run-service';
export * from './client-identity';
export * from './clock';
export * from './service-module';
