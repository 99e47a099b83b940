export * from './data-source';
export * from './postgres.module';
export * from './pool';
export * from './service-roles';
export * from './tls';
export * from './delivery-queue.repository';
export * from './scram';
