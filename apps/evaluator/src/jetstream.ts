import {
  PREVIEW_LOGS_STREAM,
  PREVIEW_LOGS_STREAM_LIMITS,
  PREVIEW_LOGS_SUBJECTS,
  TRAFFIC_STREAM,
  TRAFFIC_STREAM_LIMITS,
  TRAFFIC_STREAM_SUBJECTS,
} from '@rollout/contracts';
import type { JetStreamDeclarations } from '@rollout/platform/nats';
import type { Config } from './config';

/** The durable consumer on TRAFFIC that every evaluator replica shares. */
export const TRAFFIC_DURABLE = 'evaluator';

/**
 * The evaluator creates TRAFFIC (producers only publish) and PREVIEW_LOGS, and the durable
 * consumer. TRAFFIC carries every traffic major (`traffic.>`: v1 and v2alpha beside it); a
 * TRAFFIC created earlier on `traffic.v1.>` is updated in place (its messages kept), and the
 * consumer, which filters nothing, reads every major. Its max_deliver is unlimited: a malformed
 * event is dead-lettered at once by the evaluator itself, so redeliveries only follow a crash
 * or an outage, and never drop an event.
 */
export function evaluatorJetStream(config: Config): JetStreamDeclarations {
  return {
    streams: [
      {
        name: TRAFFIC_STREAM,
        subjects: [TRAFFIC_STREAM_SUBJECTS],
        maxAgeMs: config.TRAFFIC_MAX_AGE_MS,
        maxBytes: config.TRAFFIC_MAX_BYTES,
        // JetStream refuses a duplicate window longer than the stream's max age.
        duplicateWindowMs: Math.min(
          TRAFFIC_STREAM_LIMITS.duplicateWindowMs,
          config.TRAFFIC_MAX_AGE_MS,
        ),
      },
      {
        name: PREVIEW_LOGS_STREAM,
        subjects: [PREVIEW_LOGS_SUBJECTS],
        maxAgeMs: config.PREVIEW_LOGS_MAX_AGE_MS,
        maxBytes: config.PREVIEW_LOGS_MAX_BYTES,
        duplicateWindowMs: Math.min(
          PREVIEW_LOGS_STREAM_LIMITS.duplicateWindowMs,
          config.PREVIEW_LOGS_MAX_AGE_MS,
        ),
      },
    ],
    consumers: [
      {
        stream: TRAFFIC_STREAM,
        durable: TRAFFIC_DURABLE,
        ackWaitMs: config.EVALUATOR_ACK_WAIT_MS,
        maxDeliver: -1,
        maxAckPending: config.EVALUATOR_MAX_ACK_PENDING,
      },
    ],
  };
}
