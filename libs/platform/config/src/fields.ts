import { z } from 'zod';

/** Each message says what a good value looks like. */
/** 0 means "any free port" (tests read the port back from the server). */
export const port = (fallback: number) =>
  z.coerce
    .number({ error: 'must be a port number' })
    .int('must be an integer port')
    .min(0, 'must be a port between 0 and 65535')
    .max(65535, 'must be a port between 0 and 65535')
    .default(fallback);

export const positiveInt = (fallback: number) =>
  z.coerce
    .number({ error: 'must be a positive integer' })
    .int('must be a positive integer')
    .positive('must be a positive integer')
    .default(fallback);

const urlWithSchemes = (schemes: string[], example: string) =>
  z.string().refine(
    (value) => {
      try {
        return schemes.includes(new URL(value).protocol.replace(/:$/, ''));
      } catch {
        return false;
      }
    },
    { message: `must be a URL like ${example}` },
  );

export const commaSeparated = <T extends z.ZodType<unknown, string>>(item: T, fallback = '') =>
  z
    .string()
    .default(fallback)
    .transform((text) =>
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item));

export const natsServers = (fallback: string) =>
  commaSeparated(urlWithSchemes(['nats', 'tls'], 'nats://127.0.0.1:4222'), fallback).refine(
    (servers) => servers.length >= 1,
    'must name at least one server',
  );

export const postgresUrl = (fallback: string) =>
  urlWithSchemes(['postgres', 'postgresql'], 'postgres://user@127.0.0.1:5432/database').default(
    fallback,
  );

export const postgresSslMode = z
  .enum(['disable', 'require', 'verify-ca', 'verify-full'], {
    error: 'must be disable, require, verify-ca or verify-full',
  })
  .default('disable');

/** Safe to interpolate as a schema name. */
export const sqlIdentifier = (fallback: string) =>
  z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier ([a-z_][a-z0-9_]*)')
    .default(fallback);

export const logLevel = z
  .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    error: 'must be one of fatal, error, warn, info, debug, trace, silent',
  })
  .default('info');

export const nodeEnv = z
  .enum(['development', 'test', 'production'], {
    error: 'must be one of development, test, production',
  })
  .default('development');

/** A typo fails at boot rather than reading as false. */
export const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default(fallback ? 'true' : 'false')
    .transform((value) => value === 'true');

export const optionalSecret = z.string().min(1, 'must not be empty when set').optional();

/** docs/bus-security.md. */
export const BUS_KEY_PATTERN = /^[A-Za-z0-9_.-]{1,64}:[A-Za-z0-9_-]{43}$/;

export const busSigningKey = optionalSecret.pipe(
  z
    .string()
    .regex(BUS_KEY_PATTERN, 'must be <key id>:<32-byte Ed25519 seed, base64url>')
    .optional(),
);

export const busKeyList = commaSeparated(
  z
    .string()
    .regex(
      BUS_KEY_PATTERN,
      'must be <key id>:<32-byte Ed25519 public key, base64url>, comma-separated',
    ),
);
