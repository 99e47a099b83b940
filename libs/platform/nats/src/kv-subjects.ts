/** The KV convention nats.js and the server share; code using a bucket's stream directly names its subjects here. */
export const kvStream = (bucket: string): string => `KV_${bucket}`;

export const kvSubject = (bucket: string, key: string): string => `$KV.${bucket}.${key}`;

export const kvAllKeys = (bucket: string): string => kvSubject(bucket, '>');

export function kvKeyOf(bucket: string, subject: string): string {
  const prefix = kvSubject(bucket, '');
  if (!subject.startsWith(prefix))
    throw new Error(`"${subject}" is not a subject of KV bucket ${bucket}`);
  return subject.slice(prefix.length);
}
