import type {
  ExternalHttpPort,
  ExternalHttpResponse,
  ExternalHook,
} from '@rollout/domain/enforcement';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { EnforcementMetrics } from '../metrics/enforcement-metrics';

/** Bodies beyond this are cut off: a denial message needs no more. */
const MAX_BODY_BYTES = 64 * 1024;

/** What the user may read about a transport failure: no address, no stack. */
function describe(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      return error.code?.startsWith('ERR_TLS') || error.code?.includes('CERT')
        ? 'TLS handshake failed'
        : 'transport error';
  }
}

function parseBody(buffer: Buffer): unknown {
  if (!buffer.length) return undefined;
  try {
    return JSON.parse(buffer.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** One deadline for the whole exchange (connect, send, answer, body); a 3xx is just a status, never followed. */
export class NodeExternalHttp implements ExternalHttpPort {
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 128 });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 128 });

  constructor(private readonly metrics: EnforcementMetrics) {}

  post(
    url: string,
    body: unknown,
    options: { headers: Record<string, string>; timeoutMs: number; hook: ExternalHook },
  ): Promise<ExternalHttpResponse> {
    const started = process.hrtime.bigint();
    const payload = Buffer.from(JSON.stringify(body), 'utf8');
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    return new Promise<ExternalHttpResponse>((resolve, reject) => {
      let finished = false;
      const finish = (outcome: string, settle: () => void) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        this.metrics.externalCall(
          options.hook,
          outcome,
          Number(process.hrtime.bigint() - started) / 1e9,
        );
        settle();
      };
      const request = (secure ? httpsRequest : httpRequest)(target, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: {
          ...options.headers,
          'content-type': 'application/json',
          'content-length': payload.length,
          accept: 'application/json',
        },
      });
      const timer = setTimeout(() => {
        finish('timeout', () => reject(new Error(`no answer within ${options.timeoutMs} ms`)));
        request.destroy();
      }, options.timeoutMs);
      request.once('error', (error: NodeJS.ErrnoException) =>
        finish('error', () => reject(new Error(describe(error)))),
      );
      request.once('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY_BYTES) chunks.push(chunk);
        });
        response.once('error', (error: NodeJS.ErrnoException) =>
          finish('error', () => reject(new Error(describe(error)))),
        );
        response.once('end', () => {
          const status = response.statusCode ?? 0;
          finish(String(status), () =>
            resolve({
              status,
              body: size <= MAX_BODY_BYTES ? parseBody(Buffer.concat(chunks)) : undefined,
            }),
          );
        });
      });
      request.end(payload);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
