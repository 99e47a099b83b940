export * from './data-source';
export * from './postgres.module';
export * from './pool';
