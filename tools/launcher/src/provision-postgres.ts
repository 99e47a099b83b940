/**
 * Kubernetes' `postgres-roles` Job: each service's own role owning only its schema, as `npm start`
 * does. A password from DATABASE_ROLE_PASSWORD_<ROLE> reaches Postgres as a SCRAM verifier and is
 * never printed. Run: node dist/tools/launcher/src/provision-postgres.js
 */
import {
  ConfigError,
  commaSeparated,
  loadConfig,
  optionalSecret,
  postgresSslMode,
  postgresUrl,
} from '@rollout/platform/config';
import {
  PasswordOutcome,
  ServiceRole,
  passwordProblem,
  pgSslOptions,
  provisionServiceRoles,
} from '@rollout/platform/postgres';
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
      const variable = `DATABASE_ROLE_PASSWORD_${role.toUpperCase()}`;
      const password = env[variable] || undefined;
      const problem = password === undefined ? undefined : passwordProblem(password);
      if (problem) throw new ConfigError([`${variable} ${problem} (value hidden)`]);
      return { role, schema, ...(password ? { password } : {}) };
    }),
  };
}

const SAID: Record<PasswordOutcome, string> = {
  set: ' (password set)',
  kept: ' (password kept: it is the provisioned one)',
  reset:
    ' (password reset: it was not the provisioned one; changed since the last provisioning, or a new one is provisioned)',
  untouched: '',
};

export async function provisionPostgres(env: Record<string, string | undefined>): Promise<string> {
  const { client: options, roles } = provisioningFrom(env);
  const client = new Client({ ...options, connectionTimeoutMillis: 10_000 });
  await client.connect();
  let provisioned;
  try {
    provisioned = await provisionServiceRoles(client, roles);
  } finally {
    await client.end().catch(() => undefined);
  }
  return `provisioned ${provisioned.map((r) => `role ${r.role}, owner of schema ${r.schema}${SAID[r.password]}`).join('; ')}`;
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
