/** Warnings and errors of the services' pino lines, one readable line each, for `npm start`'s terminal. */

const PINO_LEVELS: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
};
const LABELS: Record<number, string> = { 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };

const SHOWN_OR_NOISE = new Set([
  'level',
  'time',
  'msg',
  'service',
  'pid',
  'hostname',
  'req',
  'res',
  'err',
  'responseTime',
  'context',
]);

export function consoleLine(service: string, line: string): string | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    entry = undefined;
  }
  // Not a log entry (a crash before the logger exists, a config error): always worth seeing.
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    return line.trim() === '' ? undefined : `${service}: ${line}`;
  const record = entry as Record<string, unknown>;
  const level =
    typeof record.level === 'number' ? record.level : (PINO_LEVELS[String(record.level)] ?? 30);
  if (level < 40) return undefined;
  const parts = [
    `${clock(record.time)} ${LABELS[Math.min(60, Math.floor(level / 10) * 10)] ?? 'WARN '} ${service}: ${String(record.msg ?? '')}`,
  ];
  const req = record.req as { method?: string; url?: string } | undefined;
  const res = record.res as { statusCode?: number } | undefined;
  if (req?.method && req.url)
    parts.push(`${req.method} ${req.url}${res?.statusCode ? ` → ${res.statusCode}` : ''}`);
  const err = record.err as { message?: string; type?: string } | undefined;
  if (err?.message) parts.push(`(${err.type ? `${err.type}: ` : ''}${err.message})`);
  for (const [key, value] of Object.entries(record)) {
    if (SHOWN_OR_NOISE.has(key) || value === null || typeof value === 'object') continue;
    parts.push(
      `${key}=${typeof value === 'string' && /\s/.test(value) ? JSON.stringify(value) : String(value)}`,
    );
  }
  return parts.join(' ');
}

/** HH:MM:SS of a pino time (ISO string or epoch ms), in the local time zone like a terminal clock. */
function clock(time: unknown): string {
  const date = typeof time === 'string' || typeof time === 'number' ? new Date(time) : new Date();
  const valid = Number.isNaN(date.getTime()) ? new Date() : date;
  return [valid.getHours(), valid.getMinutes(), valid.getSeconds()]
    .map((n) => String(n).padStart(2, '0'))
    .join(':');
}

export class LineBuffer {
  private partial = '';

  push(chunk: string): string[] {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop() ?? '';
    return lines.map((line) => line.replace(/\r$/, ''));
  }

  flush(): string[] {
    const rest = this.partial;
    this.partial = '';
    return rest === '' ? [] : [rest];
  }
}
