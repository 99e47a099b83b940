import { Inject, Injectable } from '@nestjs/common';
import { NATS_CONNECTION, NatsNamespace } from '@rollout/platform/nats';
import { Evaluation, RecordKeys } from '@rollout/domain/preview';
import { NatsConnection } from 'nats';
import { createHash } from 'node:crypto';
import { RecordBytes, RecordEncoder } from './log-messages';

/**
 * Publishes the records of a batch's evaluations to PREVIEW_LOGS, the complete per-event log:
 * one record per event and ACTIVE experiment, in messages of one configuration each.
 *
 * It runs before the batch is counted, and the batch is acknowledged only after both: a crash
 * in between has the batch redelivered and published again, so the stream misses no record of a
 * counted event. Message ids are derived from the configuration and the batch's traffic
 * sequences (`preview-log:{configuration}:{batch}:{part}`), so the same batch published again
 * within the stream's duplicate window is stored once; a redelivery regrouped into other
 * batches, or one after the window, stores its records again, with the same record `id`s to
 * deduplicate on downstream. A redelivery of a batch already counted publishes nothing (the
 * traffic path skips counted messages before evaluating them).
 */
@Injectable()
export class PreviewLogPublisher {
  private readonly encoder = new RecordEncoder();

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
  ) {}

  /** `seqs`: the traffic stream sequences the evaluations came from. Resolves once JetStream has stored every message. */
  async publish(evaluations: readonly Evaluation[], seqs: readonly number[]): Promise<void> {
    const byConfiguration = new Map<
      string,
      { subject: string; records: RecordBytes[]; keys: RecordKeys }
    >();
    for (const evaluation of evaluations) {
      const { active } = evaluation.view;
      if (active.length === 0) continue;
      const event = this.encoder.event(evaluation.event, evaluation.live);
      for (let i = 0; i < active.length; i++) {
        const target = active[i];
        let group = byConfiguration.get(target.keys.configuration);
        if (!group)
          byConfiguration.set(
            target.keys.configuration,
            (group = { subject: target.logSubject, records: [], keys: target.keys }),
          );
        const experiment = evaluation.experiments[i];
        group.records.push({
          event,
          experiment,
          changed: experiment.action !== evaluation.live.action,
        });
      }
    }
    if (byConfiguration.size === 0) return;
    const batch = digest([...seqs].sort((a, b) => a - b).join(','));
    const js = this.connection.jetstream();
    const acks: Promise<unknown>[] = [];
    for (const [configuration, group] of byConfiguration) {
      const subject = this.namespace.subject(group.subject);
      const prefix = `preview-log:${digest(configuration)}:${batch}`;
      this.encoder
        .runs(group.keys, group.records)
        .forEach((message, part) =>
          acks.push(js.publish(subject, message, { msgID: `${prefix}:${part}` })),
        );
    }
    await Promise.all(acks);
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 16);
