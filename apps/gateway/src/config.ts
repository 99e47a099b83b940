import {
  baseConfigSchema,
  busSigningKey,
  commaSeparated,
  optionalSecret,
  positiveInt,
} from '@rollout/platform/config';
import { z } from 'zod';
import { apiKeysSchema } from './auth/api-keys';

const jsonList = z
  .string()
  .default('[]')
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a JSON array of {name, sha256, roles, projects}',
      });
      return z.NEVER;
    }
  })
  .pipe(apiKeysSchema);

export const configSchema = z
  .object({
    ...baseConfigSchema(3000).shape,
    /** Deadline of every call from the gateway to a service over NATS. */
    RPC_TIMEOUT_MS: positiveInt(3_000),
    AUTH_API_KEYS: jsonList,
    /** Development only: the admin token to accept when nothing else is configured. */
    AUTH_DEV_TOKEN: optionalSecret,
    AUTH_JWT_ISSUER: z.string().min(1).optional(),
    AUTH_JWT_AUDIENCE: z.string().min(1).optional(),
    /** PEM public key (RS256/ES256) or HS256 shared secret. */
    AUTH_JWT_KEY: optionalSecret,
    RATE_LIMIT_PER_SECOND: positiveInt(50),
    RATE_LIMIT_BURST: positiveInt(100),
    BODY_LIMIT_BYTES: positiveInt(1024 * 1024),
    JSON_MAX_DEPTH: positiveInt(32),
    /** Several, comma-separated, to rotate. Unset: /v1/blazar/ refuses every call. */
    BLAZAR_AUTH_TOKEN_SHA256: commaSeparated(
      z
        .string()
        .regex(
          /^[0-9a-f]{64}$/,
          'must be SHA-256 hashes (64 lower-case hex characters), comma-separated',
        ),
    ),
    /** The same on every replica. Unset (development only): a random key per process. */
    PAGE_TOKEN_SECRET: optionalSecret,
    /** Relative to the working directory; missing: /console is 404. */
    CONSOLE_DIR: z.string().min(1).default('dist/apps/console'),
    /** `<key id>:<Ed25519 seed, base64url>`. Unset (development only): only services without BUS_VERIFY_KEYS serve calls. */
    BUS_SIGNING_KEY: busSigningKey,
    /** Longer than RPC_TIMEOUT_MS, at most the 60 s services accept. */
    BUS_ASSERTION_TTL_MS: z.coerce
      .number({ error: 'must be a positive integer' })
      .int('must be a positive integer')
      .max(60_000, 'must be at most 60000 (services refuse longer-lived assertions)')
      .optional(),
    /** Comma-separated origins allowed by CORS; CORS is off when unset. */
    CORS_ORIGINS: z.string().min(1).optional(),
  })
  .superRefine((config, ctx) => {
    const jwtParts = [config.AUTH_JWT_ISSUER, config.AUTH_JWT_AUDIENCE, config.AUTH_JWT_KEY].filter(
      Boolean,
    ).length;
    if (jwtParts > 0 && jwtParts < 3) {
      ctx.addIssue({
        code: 'custom',
        path: ['AUTH_JWT_ISSUER'],
        message: 'AUTH_JWT_ISSUER, AUTH_JWT_AUDIENCE and AUTH_JWT_KEY go together',
      });
    }
    if (
      config.BUS_ASSERTION_TTL_MS !== undefined &&
      config.BUS_ASSERTION_TTL_MS <= config.RPC_TIMEOUT_MS
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['BUS_ASSERTION_TTL_MS'],
        message: 'must be longer than RPC_TIMEOUT_MS, or a slow call reaches the service expired',
      });
    }
    if (config.NODE_ENV !== 'production') return;
    if (!config.BUS_SIGNING_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['BUS_SIGNING_KEY'],
        message: 'must be set in production (services refuse calls without an actor assertion)',
      });
    }
    if (!config.AUTH_API_KEYS.length && jwtParts < 3) {
      ctx.addIssue({
        code: 'custom',
        path: ['AUTH_API_KEYS'],
        message: 'must configure credentials (or AUTH_JWT_*) in production',
      });
    }
    if (!config.PAGE_TOKEN_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['PAGE_TOKEN_SECRET'],
        message: 'must be set in production (the same on every replica)',
      });
    }
    if (config.AUTH_DEV_TOKEN) {
      ctx.addIssue({
        code: 'custom',
        path: ['AUTH_DEV_TOKEN'],
        message: 'must not be set in production',
      });
    }
  });

export type Config = z.output<typeof configSchema>;
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
