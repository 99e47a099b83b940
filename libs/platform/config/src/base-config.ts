import { z } from 'zod';
import {
  busKeyList,
  logLevel,
  natsServers,
  nodeEnv,
  optionalSecret,
  port,
  positiveInt,
  postgresSslMode,
  postgresUrl,
  sqlIdentifier,
} from './fields';

export const baseConfigSchema = (defaultPort: number) =>
  z.object({
    NODE_ENV: nodeEnv,
    HOST: z.string().min(1).default('0.0.0.0'),
    PORT: port(defaultPort),
    LOG_LEVEL: logLevel,
    NATS_URL: natsServers('nats://127.0.0.1:4222'),
    NATS_USER: optionalSecret,
    NATS_PASSWORD: optionalSecret,
    NATS_TOKEN: optionalSecret,
    /** Empty in production; tests set it so concurrent runs on one NATS server never meet. */
    NATS_NAMESPACE: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be a short lower-case token ([a-z0-9_-])')
      .optional(),
    SHUTDOWN_TIMEOUT_MS: positiveInt(10_000),
    /** Unset, no assertion is checked: development only, refused at boot in production. */
    BUS_VERIFY_KEYS: busKeyList,
  });

export const databaseConfigSchema = (defaultSchema: string) =>
  z.object({
    DATABASE_URL: postgresUrl('postgres://postgres@127.0.0.1:5432/policy_rollout'),
    /** Overrides the URL's password, so a Kubernetes Secret holds only the password. */
    DATABASE_PASSWORD: optionalSecret,
    DATABASE_SCHEMA: sqlIdentifier(defaultSchema),
    DATABASE_POOL_SIZE: positiveInt(10),
    /** libpq's sslmode; production requires one that verifies (`checkDatabaseTls`). */
    DATABASE_SSL_MODE: postgresSslMode,
    /** The system's CAs when unset. */
    DATABASE_SSL_ROOT_CERT: z.string().min(1, 'must not be empty when set').optional(),
  });

export const VERIFIED_POSTGRES_SSL_MODES: readonly string[] = ['verify-ca', 'verify-full'];

/** pg reads these over the `ssl` option DATABASE_SSL_MODE gives it. */
const URL_TLS_PARAMETER = /^(ssl.*|uselibpqcompat)$/i;

/**
 * Production refuses an unverified Postgres server, and a DATABASE_URL with `sslmode`, `ssl`…
 * parameters (pg reads those over DATABASE_SSL_MODE, so `?sslmode=disable` would silently turn
 * TLS off).
 */
export function checkDatabaseTls(
  config: { NODE_ENV: string; DATABASE_URL: string; DATABASE_SSL_MODE: string },
  ctx: z.RefinementCtx,
): void {
  if (config.NODE_ENV !== 'production') return;
  if (!VERIFIED_POSTGRES_SSL_MODES.includes(config.DATABASE_SSL_MODE))
    ctx.addIssue({
      code: 'custom',
      path: ['DATABASE_SSL_MODE'],
      message:
        "must be verify-full or verify-ca in production (TLS with the server's certificate verified)",
    });
  let parameters: string[] = [];
  try {
    parameters = [...new URL(config.DATABASE_URL).searchParams.keys()].filter((name) =>
      URL_TLS_PARAMETER.test(name),
    );
  } catch {
    // A URL that does not parse was refused by its own field.
  }
  if (parameters.length > 0)
    ctx.addIssue({
      code: 'custom',
      path: ['DATABASE_URL'],
      message: `must not set ${[...new Set(parameters)].join(', ')} in production: TLS is DATABASE_SSL_MODE's, which these would override`,
    });
}

export type BaseConfig = z.output<ReturnType<typeof baseConfigSchema>>;
export type DatabaseConfig = z.output<ReturnType<typeof databaseConfigSchema>>;
