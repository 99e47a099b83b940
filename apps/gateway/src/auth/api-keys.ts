import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Principal } from './principal';

/** Only the SHA-256 of each token is stored: `[{"name":"ci","sha256":"<hex>","roles":["editor"],"projects":["p1"]}]` */
export const apiKeysSchema = z.array(
  z.object({
    name: z.string().min(1).max(128),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 lower-case hex characters'),
    roles: z.array(z.enum(['viewer', 'editor', 'admin'])).min(1),
    projects: z.union([z.literal('*'), z.array(z.string().min(1)).min(1)]),
  }),
);

export type ApiKeyConfig = z.output<typeof apiKeysSchema>[number];

export function sha256(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export class ApiKeyVerifier {
  private readonly keys: { digest: Buffer; principal: Principal }[];

  constructor(keys: ApiKeyConfig[]) {
    this.keys = keys.map((key) => ({
      digest: Buffer.from(key.sha256, 'hex'),
      principal: { name: key.name, roles: key.roles, projects: key.projects },
    }));
  }

  /** Compares against every key in constant time, so timing tells nothing about near misses. */
  verify(token: string): Principal | undefined {
    const presented = sha256(token);
    let found: Principal | undefined;
    for (const key of this.keys) {
      if (timingSafeEqual(presented, key.digest)) found = key.principal;
    }
    return found;
  }
}
