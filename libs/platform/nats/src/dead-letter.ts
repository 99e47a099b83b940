import { JsMsg, NatsConnection, headers as natsHeaders } from 'nats';
import { deadLetterSubject } from '@rollout/contracts';
import { NatsNamespace } from './namespace';

export const DEAD_LETTER_REASON_HEADER = 'Dead-Letter-Reason';

/** Control characters escaped as \uXXXX, so any text (reasons quote producers' values) can travel in a NATS header. */
export function headerSafe(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * Publishes a consumed message to `deadletter.v1.<stream>` with the reason, its subject and its
 * stream sequence in headers. The id is deterministic (`<stream>:<seq>`), so a dead-letter
 * retried after a crash is stored once. The caller terminates the message once this resolves.
 */
export async function publishDeadLetter(
  connection: NatsConnection,
  namespace: NatsNamespace,
  stream: string,
  message: JsMsg,
  reason: string,
): Promise<void> {
  const hdrs = natsHeaders();
  hdrs.set(DEAD_LETTER_REASON_HEADER, headerSafe(reason).slice(0, 1024));
  hdrs.set('Dead-Letter-Subject', message.subject);
  hdrs.set('Dead-Letter-Stream-Sequence', String(message.seq));
  await connection.jetstream().publish(namespace.subject(deadLetterSubject(stream)), message.data, {
    headers: hdrs,
    msgID: `${stream}:${message.seq}`,
  });
}
