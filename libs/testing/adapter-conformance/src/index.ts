export * from './adapter-client';
export * from './conformance';
