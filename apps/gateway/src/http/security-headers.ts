import helmet, { HelmetOptions } from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Worked out once: @fastify/helmet rebuilt them per request (3–4% of the gateway's CPU in test/bench/enforcement.bench.ts). */
export function securityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  helmet(options)(
    {} as IncomingMessage,
    response as unknown as ServerResponse,
    (error?: unknown) => {
      if (error) throw error;
    },
  );
  return headers;
}
