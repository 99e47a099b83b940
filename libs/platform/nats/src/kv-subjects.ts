/**
 * How NATS stores a KV bucket (the convention nats.js and the server share): the bucket is the
 * stream `KV_<bucket>`, and a key's entries are messages on `$KV.<bucket>.<key>`. Code that
 * reads or writes a bucket through JetStream directly (permissions, relays, followers) names
 * those subjects here, never by hand.
 */

export const kvStream = (bucket: string): string => `KV_${bucket}`;

/** The subject of one key's entries (`>` or `*` in `key` make a wildcard). */
export const kvSubject = (bucket: string, key: string): string => `$KV.${bucket}.${key}`;

/** Every key of a bucket: the bucket stream's subjects. */
export const kvAllKeys = (bucket: string): string => kvSubject(bucket, '>');

export function kvKeyOf(bucket: string, subject: string): string {
  const prefix = kvSubject(bucket, '');
  if (!subject.startsWith(prefix))
    throw new Error(`"${subject}" is not a subject of KV bucket ${bucket}`);
  return subject.slice(prefix.length);
}
