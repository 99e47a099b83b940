export * from './adapter-client';
export * from './conformance';
export * from './options';
