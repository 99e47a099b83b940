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
     * Public keys that verify the gateway's actor assertions, `<key id>:<key>` (several during a
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
     * `require` (encrypted, server not verified) or `verify-full` (the server's certificate must
     * chain to DATABASE_SSL_ROOT_CERT and name the URL's host). Production: verify-full.
     */
    DATABASE_SSL_MODE: postgresSslMode,
    /** PEM file of the CA that signed Postgres's certificate (verify-full; the system's CAs when unset). */
    DATABASE_SSL_ROOT_CERT: z.string().min(1, 'must not be empty when set').optional(),
  });

export type BaseConfig = z.output<ReturnType<typeof baseConfigSchema>>;
export type DatabaseConfig = z.output<ReturnType<typeof databaseConfigSchema>>;
