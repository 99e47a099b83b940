/** Blazar's own format is `2020-05-13 00:00`; no offset means UTC (Blazar's naive datetimes are UTC). */
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

export function parseTimestamp(text: string): Date | undefined {
  const m = TIMESTAMP.exec(text.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(
    Number,
  );
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  // setUTCFullYear, not Date.UTC, which reads years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  // 31 February would roll over into March: refuse dates that do not exist.
  if (date.getUTCDate() !== day) return undefined;
  const utc = date.getTime();
  let offsetMinutes = 0;
  if (m[9]) {
    const hours = Number(m[10]);
    const minutes = Number(m[11] ?? '0');
    if (hours > 23 || minutes > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  return new Date(utc - offsetMinutes * 60_000);
}

/** NUL (Postgres) and unpaired surrogates (JSON) are refused at the edge rather than failing in the database. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** The first path (`a.b[2].c`) under `value` holding unstorable text, if any. */
export function unstorableTextAt(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path;
  if (depth > 32 || typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableTextAt(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, child] of Object.entries(value)) {
    if (!isStorableText(key)) return `${path}.(key)`;
    const found = unstorableTextAt(child, `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** For untrusted text such as an external service's message. */
export function storableText(text: string, maxLength = 1024): string {
  const cleaned = text.replace(new RegExp(UNSTORABLE.source, 'g'), '\ufffd');
  return cleaned.length > maxLength ? `${cleaned.slice(0, maxLength - 1)}…` : cleaned;
}
