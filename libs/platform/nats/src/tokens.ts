/** The process's one NATS connection (core request/reply, JetStream and KV all share it). */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');
export const NATS_MODULE_OPTIONS = Symbol('NATS_MODULE_OPTIONS');
