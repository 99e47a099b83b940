import { invalidPageToken } from '@rollout/contracts';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The gateway signs every `nextPageToken` and checks every `pageToken` before a service sees it, so
 * a forged token is 400 whatever the service would make of it.
 */
export class PageTokens {
  private readonly key: Buffer;

  /** Without a secret (development), one is made per process: tokens die with it. */
  constructor(secret?: string) {
    this.key = secret ? Buffer.from(secret, 'utf8') : randomBytes(32);
  }

  seal(inner: string): string {
    return `${inner}.${this.signature(inner)}`;
  }

  /** INVALID_ARGUMENT naming `pageToken` otherwise. */
  open(token: string): string {
    const dot = token.lastIndexOf('.');
    const inner = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.signature(inner), 'base64url');
    if (dot <= 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw invalidPageToken('pageToken is not a token this API issued.');
    }
    return inner;
  }

  openRequest(data: unknown): unknown {
    if (!isRecord(data) || typeof data.pageToken !== 'string' || data.pageToken === '') return data;
    return { ...data, pageToken: this.open(data.pageToken) };
  }

  sealReply<T>(reply: T): T {
    if (!isRecord(reply) || typeof reply.nextPageToken !== 'string' || reply.nextPageToken === '')
      return reply;
    return { ...reply, nextPageToken: this.seal(reply.nextPageToken) };
  }

  private signature(inner: string): string {
    return createHmac('sha256', this.key).update(inner).digest('base64url');
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
