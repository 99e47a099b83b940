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
    /**
     * Prefix for every subject and stream name this process uses. Empty in production;
     * tests set it so concurrent runs on one NATS server never see each other.
     */
    NATS_NAMESPACE: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be a short lower-case token ([a-z0-9_-])')
      .optional(),
    SHUTDOWN_TIMEOUT_MS: positiveInt(10_000),
    /**
     * Public keys that verify the actor assertions of the HTTP edge and of system keys, `<key id>:<key>` (several during a
     * rotation). A service serving requests refuses every request without a valid assertion;
     * unset, it checks none (development only: refused at boot in production).
     */
    BUS_VERIFY_KEYS: busKeyList,
  });

/** Variables of services that own a Postgres schema. */
export const databaseConfigSchema = (defaultSchema: string) =>
  z.object({
    DATABASE_URL: postgresUrl('postgres://postgres@127.0.0.1:5432/policy_rollout'),
    /** Overrides the URL's password, so a Kubernetes Secret holds only the password. */
    DATABASE_PASSWORD: optionalSecret,
    DATABASE_SCHEMA: sqlIdentifier(defaultSchema),
    DATABASE_POOL_SIZE: positiveInt(10),
    /**
     * TLS to Postgres, as libpq's sslmode: `disable` (the default, a server on this machine),
     * `require` (encrypted, server not verified), `verify-ca` (the server's certificate must chain
     * to DATABASE_SSL_ROOT_CERT) or `verify-full` (and name the URL's host). Production: one of
     * the two that verify (`checkDatabaseTls`).
     */
    DATABASE_SSL_MODE: postgresSslMode,
    /** PEM file of the CA that signed Postgres's certificate (verify-full; the system's CAs when unset). */
    DATABASE_SSL_ROOT_CERT: z.string().min(1, 'must not be empty when set').optional(),
  });

/** The sslmodes that verify the server's certificate: the only ones production accepts. */
export const VERIFIED_POSTGRES_SSL_MODES: readonly string[] = ['verify-ca', 'verify-full'];

/** Query parameters of a Postgres URL through which pg would set TLS itself, over DATABASE_SSL_MODE. */
const URL_TLS_PARAMETER = /^(ssl.*|uselibpqcompat)$/i;

/**
 * Production refuses a Postgres connection whose server is not verified: DATABASE_SSL_MODE must
 * be `verify-full` or `verify-ca`, and DATABASE_URL must carry no `sslmode`, `ssl`, `sslrootcert`…
 * parameter (pg reads those over the `ssl` option DATABASE_SSL_MODE gives it, so
 * `?sslmode=disable` would silently turn TLS off). Every service with a database applies it in
 * its config schema (`.superRefine(checkDatabaseTls)`).
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
