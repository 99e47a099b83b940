import type { Readable } from 'node:stream';

export interface Line {
  text: string;
  end: number;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** An abort destroys the stream, so a reader waiting on a quiet pipe stops at once. */
export async function* readLines(
  stream: Readable,
  startOffset = 0,
  signal?: AbortSignal,
): AsyncGenerator<Line> {
  const stop = () => stream.destroy();
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', stop, { once: true });
  let offset = startOffset;
  let rest: Buffer = Buffer.alloc(0);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer | string>) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      const buffer = rest.length > 0 ? Buffer.concat([rest, bytes]) : bytes;
      let start = 0;
      for (let newline = buffer.indexOf(NEWLINE); newline !== -1;) {
        offset += newline + 1 - start;
        yield { text: text(buffer, start, newline), end: offset };
        start = newline + 1;
        newline = buffer.indexOf(NEWLINE, start);
      }
      rest = buffer.subarray(start);
    }
    if (rest.length > 0 && !signal?.aborted)
      yield { text: text(rest, 0, rest.length), end: offset + rest.length };
  } catch (error) {
    // Destroyed on purpose: the import was interrupted; what was read is all there is.
    if (!signal?.aborted) throw error;
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

function text(buffer: Buffer, start: number, end: number): string {
  const last = end > start && buffer[end - 1] === CARRIAGE_RETURN ? end - 1 : end;
  return buffer.toString('utf8', start, last);
}
