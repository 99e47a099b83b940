export * from './metrics.module';
export * from './client-metrics';
