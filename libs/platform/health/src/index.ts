export * from './readiness';
export * from './health.module';
