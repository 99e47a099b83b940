/** Every run names its own namespace, schema or database, so runs never meet. */
export { TEST_NATS_URL, TEST_POSTGRES_URL } from './servers';
export * from './helpers';
export * from './service-process';
export * from './nats-cluster';
export * from './nats-server';
export * from './prng';
export * from './config-checks';
