export * from './readiness';
export * from './public-route';
export * from './health.module';
