import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Config, GATEWAY_CONFIG } from '../config';
import { ApiKeyVerifier, sha256 } from './api-keys';
import { JwtVerifier } from './jwt';
import type { Principal } from './principal';

/** With nothing configured, a development admin token keeps the quick start working; production refuses that config. */
@Injectable()
export class Authenticator {
  private readonly logger = new Logger('Auth');
  private readonly apiKeys: ApiKeyVerifier;
  private readonly jwt?: JwtVerifier;

  constructor(@Inject(GATEWAY_CONFIG) config: Config) {
    const keys = [...config.AUTH_API_KEYS];
    if (!keys.length && !config.AUTH_JWT_ISSUER) {
      const token = config.AUTH_DEV_TOKEN ?? `dev_${randomBytes(24).toString('base64url')}`;
      keys.push({
        name: 'development-admin',
        sha256: sha256(token).toString('hex'),
        roles: ['admin'],
        projects: '*',
      });
      if (!config.AUTH_DEV_TOKEN) {
        this.logger.warn(`No credentials configured: development admin token is ${token}`);
      }
    }
    this.apiKeys = new ApiKeyVerifier(keys);
    if (config.AUTH_JWT_ISSUER && config.AUTH_JWT_AUDIENCE && config.AUTH_JWT_KEY) {
      this.jwt = new JwtVerifier({
        issuer: config.AUTH_JWT_ISSUER,
        audience: config.AUTH_JWT_AUDIENCE,
        key: config.AUTH_JWT_KEY,
      });
    }
  }

  authenticate(authorization: string | undefined): Principal | undefined {
    const match = /^Bearer ([\x21-\x7e]{1,4096})$/.exec(authorization ?? '');
    if (!match) return undefined;
    return this.apiKeys.verify(match[1]) ?? this.jwt?.verify(match[1]);
  }
}
