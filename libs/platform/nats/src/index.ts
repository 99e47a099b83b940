export { NATS_CONNECTION, NATS_MODULE_OPTIONS } from './tokens';
export { NatsNamespace } from './namespace';
export type { ActorSigner, NatsModuleOptions } from './nats-options';
export { inboxPrefixOf } from './nats-options';
export { NatsModule, NatsReadiness } from './nats.module';

export type { RpcCallOptions } from './rpc-client';
export { NatsRpcClient } from './rpc-client';
export type {
  GatedRequest,
  NatsRpcServerOptions,
  RpcRequestGate,
  RpcRequestHook,
  RpcRequestInfo,
  RpcRequestScope,
} from './rpc-server';
export { NatsRpcServer } from './rpc-server';

export type { PullConsumerRegistration } from './pull-consumer-host';
export { PoisonMessageError, PullConsumerHost } from './pull-consumer-host';
export type { BatchConsumerOptions, BatchHandler, Rejection } from './batch-consumer';
export { BatchConsumer } from './batch-consumer';
export { DEAD_LETTER_REASON_HEADER } from './dead-letter';
export type { JetStreamSinkOptions, RelayMessage } from './jetstream-sink';
export { JetStreamSink, cursorHeaders, cursorOfHeaders, eventHeaders } from './jetstream-sink';
export type { StoredEntry } from './direct-reader';
export { DirectReader } from './direct-reader';

export { kvAllKeys, kvKeyOf, kvStream, kvSubject } from './kv-subjects';
export type { KvEntry, KvOperation, KvWrite } from './kv-bucket';
export {
  KvFollower,
  KvWriter,
  isKvDeletion,
  isKvRevisionConflict,
  kvDeletionHeaders,
  kvOperationOf,
} from './kv-bucket';

export { consumerConfig, kvBucketConfig, streamConfig } from './jetstream-config';
export type { FieldDrift } from './topology-drift';
export { RECREATED_CONSUMER_FIELDS, configDrift, describeDrift, pushDrift } from './topology-drift';
export { HOW_TO_PROVISION, HOW_TO_REPAIR, busDrift } from './bus-drift';
