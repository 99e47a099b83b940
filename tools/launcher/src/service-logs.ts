import { WriteStream, createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LineBuffer, consoleLine } from './console-lines';
import type { ServiceName } from './settings';

export interface ConsoleOutput {
  dir: string;
  serviceOutput(service: ServiceName, chunk: string): void;
  close(): Promise<void>;
}

export function consoleOutput(dir: string, show: (line: string) => void): ConsoleOutput {
  mkdirSync(dir, { recursive: true });
  const files = new Map<ServiceName, WriteStream>();
  const buffers = new Map<ServiceName, LineBuffer>();
  return {
    dir,
    serviceOutput(service, chunk) {
      let file = files.get(service);
      if (!file) files.set(service, (file = createWriteStream(join(dir, `${service}.log`))));
      file.write(chunk);
      let buffer = buffers.get(service);
      if (!buffer) buffers.set(service, (buffer = new LineBuffer()));
      for (const line of buffer.push(chunk)) {
        const readable = consoleLine(service, line);
        if (readable !== undefined) show(readable);
      }
    },
    async close() {
      for (const [service, buffer] of buffers) {
        for (const line of buffer.flush()) {
          const readable = consoleLine(service, line);
          if (readable !== undefined) show(readable);
        }
      }
      await Promise.all(
        [...files.values()].map((file) => new Promise((resolve) => file.end(resolve))),
      );
    },
  };
}
