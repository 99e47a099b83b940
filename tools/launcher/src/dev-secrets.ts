/**
 * `npm run deploy:dev-secrets`: makes the credentials of a development cluster on the machine
 * that deploys it, into deploy/k8s/overlays/dev/secrets/ (ignored by git), which the dev
 * overlay's secretGenerator reads: a password per NATS user of bus-users.json, the gateway's and
 * the evaluator's actor-assertion keys, an admin API key (the token in `admin-token`, only its
 * SHA-256 in a Secret), the page-token secret, the Postgres superuser's password and one
 * Postgres role and password per service. Files already there are kept (the database and the
 * clients already use them); `--force` makes new ones. Nothing in the repository is a credential.
 */
import { BusUser } from '@rollout/provision';
import { generateBusKeyPair } from '@rollout/platform/bus-security';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUS_USERS_FILE } from './bus-authorization';

export const DEV_SECRETS_DIR = join(
  __dirname,
  '..',
  '..',
  '..',
  'deploy',
  'k8s',
  'overlays',
  'dev',
  'secrets',
);

/**
 * Each Kubernetes service that owns a schema, and its Postgres role: the user of its
 * DATABASE_URL, which owns its DATABASE_SCHEMA of the same name (base/postgres-roles/job.yaml).
 */
export const KUBERNETES_DATABASE_ROLES: Record<string, string> = {
  'experiment-service': 'experiment',
  evaluator: 'preview',
  'enforcement-service': 'enforcement',
  'inspection-rules-service': 'inspection',
  'budget-adapter': 'budget_adapter',
};

const secret = () => randomBytes(24).toString('base64url');
const envFile = (entries: Record<string, string>) =>
  Object.entries(entries)
    .map(([key, value]) => `${key}=${value}\n`)
    .join('');

/** The files of a fresh set of development secrets (name -> content), for these NATS users. */
export function devSecretFiles(users: BusUser[]): Record<string, string> {
  const keyId = `dev-${new Date().toISOString().slice(0, 10)}`;
  const gateway = generateBusKeyPair(keyId);
  const evaluator = generateBusKeyPair(`system.evaluator.${keyId}`);
  const adminToken = `admin_${secret()}`;
  const apiKeys = [
    {
      name: 'dev-admin',
      sha256: createHash('sha256').update(adminToken).digest('hex'),
      roles: ['admin'],
      projects: '*',
    },
  ];
  const files: Record<string, string> = {
    'nats-users.env': envFile(
      Object.fromEntries(users.map((user) => [user.password.replace(/^\$/, ''), secret()])),
    ),
    'bus-actor-keys.env': envFile({
      'signing-key': gateway.signingKey,
      'evaluator-signing-key': evaluator.signingKey,
      'verify-keys': `${gateway.verifyKey},${evaluator.verifyKey}`,
    }),
    'gateway-auth.env': envFile({
      'api-keys': JSON.stringify(apiKeys),
      'page-token-secret': secret(),
    }),
    'admin-token': `${adminToken}\n`,
    'postgres-superuser.env': envFile({ username: 'postgres', password: secret() }),
  };
  for (const [service, role] of Object.entries(KUBERNETES_DATABASE_ROLES))
    files[`postgres-${service}.env`] = envFile({ username: role, password: secret() });
  return files;
}

/** Writes a fresh set into `dir` unless one is there (or `force`); says what it did. */
export function writeDevSecrets(dir: string, force = false): string {
  const users = JSON.parse(readFileSync(BUS_USERS_FILE, 'utf8')) as BusUser[];
  const files = devSecretFiles(users);
  const present = Object.keys(files).filter((name) => existsSync(join(dir, name)));
  if (present.length > 0 && !force)
    return `kept the secrets in ${dir} (--force makes new ones: then redeploy, and give the database a new volume)`;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(dir, name), content, { mode: 0o600 });
  return `wrote new secrets to ${dir}; the admin API token is in ${join(dir, 'admin-token')}`;
}

if (require.main === module) {
  process.stdout.write(`${writeDevSecrets(DEV_SECRETS_DIR, process.argv.includes('--force'))}\n`);
}
