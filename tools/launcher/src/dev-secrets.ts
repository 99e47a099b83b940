/**
 * `npm run deploy:dev-secrets [--force]`: the dev cluster's credentials, made on the deploying
 * machine into deploy/k8s/overlays/dev/secrets/ (ignored by git): nothing in the repository is a
 * credential. Existing files are kept, since the database and clients already use them.
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

/** Each role owns the DATABASE_SCHEMA of the same name (base/postgres-roles/job.yaml). */
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
