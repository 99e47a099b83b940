import type {
  DurableConsumerDeclaration,
  KvDeclaration,
  StreamDeclaration,
} from '@rollout/contracts';
import {
  AckPolicy,
  ConsumerConfig,
  DeliverPolicy,
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  StreamConfig,
  nanos,
} from 'nats';
import { kvAllKeys, kvStream } from './kv-subjects';
import { NatsNamespace } from './namespace';

export function streamConfig(
  decl: StreamDeclaration,
  ns: NatsNamespace,
  replicas: number,
): Partial<StreamConfig> & { name: string } {
  return {
    num_replicas: replicas,
    name: ns.stream(decl.name),
    subjects: decl.subjects.map((s) => ns.subject(s)),
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(decl.maxAgeMs),
    max_bytes: decl.maxBytes,
    duplicate_window: nanos(decl.duplicateWindowMs),
    allow_direct: decl.allowDirect ?? false,
  };
}

/** Named by the KV convention, so a key is still a publish on `$KV.<bucket>.<key>`. */
export function writeOnceBucketConfig(
  decl: KvDeclaration,
  ns: NatsNamespace,
  replicas: number,
): Partial<StreamConfig> & { name: string } {
  const limits = decl.writeOnce;
  if (!limits) throw new Error(`bucket ${decl.bucket} is not declared write-once`);
  const bucket = ns.bucket(decl.bucket);
  const maxAgeMs = decl.ttlMs ?? 0;
  return {
    name: kvStream(bucket),
    subjects: [kvAllKeys(bucket)],
    num_replicas: replicas,
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(maxAgeMs),
    max_msgs_per_subject: decl.history ?? 1,
    max_msg_size: limits.maxMsgSize,
    max_bytes: limits.maxBytes,
    max_msgs: limits.maxMsgs,
    discard: DiscardPolicy.New,
    discard_new_per_subject: true,
    allow_rollup_hdrs: false,
    deny_delete: true,
    deny_purge: true,
    allow_direct: false,
    duplicate_window: nanos(Math.min(maxAgeMs || 120_000, 120_000)),
  };
}

export function consumerConfig(
  decl: DurableConsumerDeclaration,
  ns: NatsNamespace,
): Partial<ConsumerConfig> & { durable_name: string } {
  return {
    durable_name: decl.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(decl.ackWaitMs),
    max_deliver: decl.maxDeliver,
    max_ack_pending: decl.maxAckPending ?? 1000,
    filter_subject: decl.filterSubject ? ns.subject(decl.filterSubject) : '',
  };
}

export function kvBucketConfig(
  decl: KvDeclaration,
  ns: NatsNamespace,
  replicas: number,
): Partial<StreamConfig> & { name: string } {
  if (decl.writeOnce) return writeOnceBucketConfig(decl, ns, replicas);
  const bucket = ns.bucket(decl.bucket);
  return {
    name: kvStream(bucket),
    subjects: [kvAllKeys(bucket)],
    num_replicas: replicas,
    max_age: nanos(decl.ttlMs ?? 0),
    max_msgs_per_subject: decl.history ?? 1,
    allow_direct: true,
  };
}
