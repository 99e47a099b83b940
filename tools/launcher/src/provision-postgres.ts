/**
 * The Postgres provisioning step of Kubernetes (the `postgres-roles` Job, before the services,
 * as migrations are): as an admin (DATABASE_URL: a superuser), gives each service its own role
 * owning only its own schema, the same step the launcher runs for `npm start`. Idempotent. A
 * role's password comes from DATABASE_ROLE_PASSWORD_<ROLE> (upper case); unset, it is left as is.
 *
 * Run from any service image: node dist/tools/launcher/src/provision-postgres.js
 */
import {
  commaSeparated,
  loadConfig,
  optionalSecret,
  postgresSslMode,
  postgresUrl,
} from '@rollout/platform/config';
import { ServiceRole, pgSslOptions, provisionServiceRoles } from '@rollout/platform/postgres';
import { Client } from 'pg';
import { z } from 'zod';

const provisioningSchema = z.object({
  DATABASE_URL: postgresUrl('postgres://postgres@127.0.0.1:5432/policy_rollout'),
  DATABASE_PASSWORD: optionalSecret,
  DATABASE_SSL_MODE: postgresSslMode,
  DATABASE_SSL_ROOT_CERT: z.string().min(1).optional(),
  DATABASE_ROLES: commaSeparated(
    z
      .string()
      .regex(
        /^[a-z_][a-z0-9_]{0,62}:[a-z_][a-z0-9_]{0,62}$/,
        'must be role:schema pairs of lower-case SQL identifiers, comma-separated',
      ),
  ).refine((pairs) => pairs.length > 0, 'must name at least one role:schema pair'),
});

export interface Provisioning {
  client: { connectionString: string; password?: string; ssl: ReturnType<typeof pgSslOptions> };
  roles: ServiceRole[];
}

/** What to provision, from the environment; throws a ConfigError naming the variable. */
export function provisioningFrom(env: Record<string, string | undefined>): Provisioning {
  const config = loadConfig(provisioningSchema, env);
  return {
    client: {
      connectionString: config.DATABASE_URL,
      ...(config.DATABASE_PASSWORD ? { password: config.DATABASE_PASSWORD } : {}),
      ssl: pgSslOptions({
        mode: config.DATABASE_SSL_MODE,
        rootCert: config.DATABASE_SSL_ROOT_CERT,
      }),
    },
    roles: config.DATABASE_ROLES.map((pair) => {
      const [role, schema] = pair.split(':');
      const password = env[`DATABASE_ROLE_PASSWORD_${role.toUpperCase()}`] || undefined;
      return { role, schema, ...(password ? { password } : {}) };
    }),
  };
}

/** Provisions the roles; resolves with the line to print. */
export async function provisionPostgres(env: Record<string, string | undefined>): Promise<string> {
  const { client: options, roles } = provisioningFrom(env);
  const client = new Client({ ...options, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await provisionServiceRoles(client, roles);
  } finally {
    await client.end().catch(() => undefined);
  }
  return `provisioned ${roles.map((r) => `role ${r.role}, owner of schema ${r.schema}${r.password ? ' (password set)' : ''}`).join('; ')}`;
}

if (require.main === module) {
  provisionPostgres(process.env).then(
    (line) => process.stdout.write(`${line}\n`),
    (error: unknown) => {
      process.stderr.write(
        `postgres provisioning failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
