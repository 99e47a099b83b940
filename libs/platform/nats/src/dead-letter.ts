import { JsMsg, NatsConnection, headers as natsHeaders } from 'nats';
import { deadLetterSubject } from '@rollout/contracts';
import { NatsNamespace } from './namespace';

export const DEAD_LETTER_REASON_HEADER = 'Dead-Letter-Reason';

/** Reasons quote producers' values, and a NATS header cannot carry control characters. */
export function headerSafe(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The id `<stream>:<seq>` makes a dead-letter retried after a crash stored once. */
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
