/**
 * Timestamps as Blazar and our clients write them: ISO 8601 / RFC 3339 with `T` or a space,
 * seconds and fractions optional (Blazar's own API format is `2020-05-13 00:00`), and an offset
 * (`Z`, `+02:00`, `+0200`, `+02`) or none, which means UTC (Blazar's naive datetimes are UTC).
 */
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/** The instant a timestamp names, or undefined when it is not one of the accepted forms. */
export function parseTimestamp(text: string): Date | undefined {
  const m = TIMESTAMP.exec(text.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number);
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC rolls 31 February over into March: refuse dates that do not exist.
  if (new Date(utc).getUTCDate() !== day) return undefined;
  let offsetMinutes = 0;
  if (m[9]) {
    const hours = Number(m[10]);
    const minutes = Number(m[11] ?? '0');
    if (hours > 23 || minutes > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  return new Date(utc - offsetMinutes * 60_000);
}
