import { Inject, Injectable } from '@nestjs/common';
import { NATS_CONNECTION, NatsNamespace } from '@rollout/platform/nats';
import { compactLogSubjectOf } from '@rollout/contracts';
import { ViewLog, policyLogKeys } from '@rollout/domain/preview';
import { NatsConnection, PubAck } from 'nats';
import { createHash } from 'node:crypto';
import { Config, EVALUATOR_CONFIG } from '../config';
import {
  RecordBytes,
  RecordEncoder,
  compactPolicyLogMessages,
  policyLogMessages,
} from './log-messages';

/**
 * Runs before the batch is counted, so a crash republishes it and no counted event misses its
 * record. Message ids derive from the traffic sequences (stored once within the duplicate window);
 * past it, records repeat with the same `id`s for downstream to deduplicate.
 */
@Injectable()
export class PreviewLogPublisher {
  private readonly encoder = new RecordEncoder();
  private readonly perExperiment: boolean;
  private readonly policyJson: boolean;

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
    @Inject(EVALUATOR_CONFIG)
    config: Pick<Config, 'PREVIEW_LOGS_PER_EXPERIMENT' | 'PREVIEW_LOGS_POLICY_JSON'>,
  ) {
    this.perExperiment = config.PREVIEW_LOGS_PER_EXPERIMENT;
    this.policyJson = config.PREVIEW_LOGS_POLICY_JSON;
  }

  /** `seqs` sorted. Resolves once JetStream has stored every message. */
  async publish(logs: readonly ViewLog[], seqs: readonly number[]): Promise<void> {
    if (logs.length === 0) return;
    const batch = digest(seqs.join(','));
    const js = this.connection.jetstream();
    const acks: Promise<PubAck>[] = [];
    for (const log of logs) {
      const configurations = digest(policyLogKeys(log.view).configurations);
      const compact = this.namespace.subject(compactLogSubjectOf(log.view.logSubject));
      compactPolicyLogMessages(log).forEach((message, part) =>
        acks.push(
          js.publish(compact, message, {
            msgID: `preview-log-compact:${configurations}:${batch}:${part}`,
          }),
        ),
      );
      if (this.policyJson) {
        const subject = this.namespace.subject(log.view.logSubject);
        const prefix = `preview-log:${configurations}:${batch}`;
        policyLogMessages(log).forEach((message, part) =>
          acks.push(js.publish(subject, message, { msgID: `${prefix}:${part}` })),
        );
      }
      if (this.perExperiment) acks.push(...this.publishPerExperiment(log, batch));
    }
    await Promise.all(acks);
  }

  private publishPerExperiment(log: ViewLog, batch: string): Promise<PubAck>[] {
    const js = this.connection.jetstream();
    const { active } = log.view;
    const records: RecordBytes[][] = active.map(() => []);
    for (let e = 0; e < log.events.length; e++) {
      const outcome = log.outcomes[e];
      const event = this.encoder.event(log.events[e], outcome.live);
      for (let i = 0; i < active.length; i++) {
        const experiment = outcome.experiments[i];
        records[i].push({ event, experiment, changed: experiment.action !== outcome.live.action });
      }
    }
    return active.flatMap((target, i) => {
      const subject = this.namespace.subject(target.logSubject);
      const prefix = `preview-log:${digest(target.keys.configuration)}:${batch}`;
      return this.encoder
        .runs(target.keys, records[i])
        .map((message, part) => js.publish(subject, message, { msgID: `${prefix}:${part}` }));
    });
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 16);
