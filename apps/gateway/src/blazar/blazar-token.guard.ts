import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { StatusError } from '@rollout/contracts';
import type { FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Config, GATEWAY_CONFIG } from '../config';
import { HttpClientContext, currentHttpClient } from '../http/client-context';

const BLAZAR_ACTOR: NonNullable<HttpClientContext['actor']> = {
  actor: 'blazar',
  roles: ['editor'],
  projects: '*',
};

/**
 * Blazar's static `external_service_token`; only SHA-256 hashes are configured (several, to
 * rotate), compared in constant time. None configured: every call is refused.
 */
@Injectable()
export class BlazarTokenGuard implements CanActivate {
  private readonly digests: Buffer[];

  constructor(@Inject(GATEWAY_CONFIG) config: Config) {
    this.digests = config.BLAZAR_AUTH_TOKEN_SHA256.map((hex) => Buffer.from(hex, 'hex'));
  }

  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<FastifyRequest>().headers['x-auth-token'];
    const token = Array.isArray(header) ? header[0] : header;
    if (typeof token === 'string' && token.length > 0 && token.length <= 4096) {
      const presented = createHash('sha256').update(token, 'utf8').digest();
      let match = false;
      for (const digest of this.digests) match = timingSafeEqual(presented, digest) || match;
      if (match) {
        // Blazar acts for every project it manages; services record and check it as the actor `blazar`.
        const client = currentHttpClient();
        if (client) client.actor = BLAZAR_ACTOR;
        return true;
      }
    }
    throw StatusError.withReason(
      'UNAUTHENTICATED',
      'A valid X-Auth-Token is required.',
      'UNAUTHENTICATED',
    );
  }
}
