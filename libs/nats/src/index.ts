export * from './tokens';
export * from './namespace';
export * from './jetstream-setup';
export * from './pull-consumer-host';
export * from './rpc-client';
export * from './rpc-server';
export * from './nats.module';
