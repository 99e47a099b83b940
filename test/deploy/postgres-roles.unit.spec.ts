import { KUBERNETES_DATABASE_ROLES } from '@rollout/launcher';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  K8sObject,
  OVERLAYS,
  Overlay,
  ROOT,
  mountedFiles,
  named,
  ofKind,
  plainEnv,
  render,
  secretEnv,
} from './render';

/**
 * Least privilege in Postgres (docs/security.md): each service logs in as its own role, which
 * owns its own schema and nothing else, with a password only it reads; a provisioning Job, the
 * only holder of the superuser's password, makes the roles; prod speaks TLS, verify-full.
 */
const rendered = Object.fromEntries(OVERLAYS.map((o) => [o, render(o)])) as Record<
  Overlay,
  K8sObject[]
>;
const withoutHash = (name: string) => name.replace(/-[a-z0-9]{10}$/, '');
const containerOf = (object: K8sObject) => object.spec.template.spec.containers[0];
const secretRefs = (container: K8sObject): Record<string, { name: string; key: string }> =>
  Object.fromEntries(
    (container.env ?? [])
      .filter((e: { valueFrom?: { secretKeyRef?: unknown } }) => e.valueFrom?.secretKeyRef)
      .map((e: { name: string; valueFrom: { secretKeyRef: { name: string; key: string } } }) => [
        e.name,
        { name: withoutHash(e.valueFrom.secretKeyRef.name), key: e.valueFrom.secretKeyRef.key },
      ]),
  );

describe.each(OVERLAYS)('Postgres in the %s overlay', (overlay) => {
  const objects = rendered[overlay];
  const job = named(objects, 'Job', 'postgres-roles')!;

  it.each(Object.entries(KUBERNETES_DATABASE_ROLES))(
    'has %s log in as its own role %s, owner of its schema, with a password from its own Secret',
    (service, role) => {
      const container = containerOf(named(objects, 'Deployment', service)!);
      const env = plainEnv(objects, container);
      const url = new URL(env.DATABASE_URL);
      expect([url.username, url.password, url.hostname]).toEqual([
        role,
        '',
        'policy-rollout-db-rw',
      ]);
      expect(env.DATABASE_SCHEMA).toBe(role);
      expect(secretRefs(container).DATABASE_PASSWORD).toEqual({
        name: `postgres-${service}`,
        key: 'password',
      });
    },
  );

  it("gives no Deployment another service's Secret, nor the superuser's, nor the gateway any", () => {
    for (const deployment of ofKind(objects, 'Deployment')) {
      const name = deployment.metadata.name;
      const secrets = Object.values(secretRefs(containerOf(deployment))).map((s) => s.name);
      const database = secrets.filter(
        (s) => s.startsWith('postgres-') || s.startsWith('policy-rollout-db'),
      );
      expect([name, database]).toEqual([
        name,
        name in KUBERNETES_DATABASE_ROLES ? [`postgres-${name}`] : [],
      ]);
    }
    const gateway = plainEnv(objects, containerOf(named(objects, 'Deployment', 'gateway')!));
    expect(Object.keys(gateway).filter((v) => v.startsWith('DATABASE_'))).toEqual([]);
  });

  it('provisions exactly those roles and schemas with a Job, as the superuser, with the passwords the services read', () => {
    const container = containerOf(job);
    const env = plainEnv(objects, container);
    const refs = secretRefs(container);
    expect(refs.DATABASE_PASSWORD).toEqual({
      name: 'policy-rollout-db-superuser',
      key: 'password',
    });
    expect(new URL(env.DATABASE_URL).username).toBe('postgres');
    const services = Object.keys(KUBERNETES_DATABASE_ROLES);
    const expected = services.map((service) => {
      const deployment = plainEnv(objects, containerOf(named(objects, 'Deployment', service)!));
      return `${new URL(deployment.DATABASE_URL).username}:${deployment.DATABASE_SCHEMA}`;
    });
    expect(env.DATABASE_ROLES.split(',').sort()).toEqual(expected.sort());
    for (const service of services) {
      const role = KUBERNETES_DATABASE_ROLES[service];
      expect(refs[`DATABASE_ROLE_PASSWORD_${role.toUpperCase()}`]).toEqual({
        name: `postgres-${service}`,
        key: 'password',
      });
    }
    // Its program is in every image (deploy/Dockerfile builds it with the services: tsconfig.image.json).
    expect(container.command).toEqual(['node', 'dist/tools/launcher/src/provision-postgres.js']);
    expect(existsSync(join(ROOT, 'tools', 'launcher', 'src', 'provision-postgres.ts'))).toBe(true);
    expect(container.image).toMatch(/^policy-rollout\/experiment-service(:|$)/);
  });

  it('runs the Job as safely as a service, reaching only Postgres, which admits it', () => {
    const pod = job.spec.template.spec;
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(containerOf(job).securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(containerOf(job).resources.limits).toEqual(
      expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }),
    );
    expect(job.spec.ttlSecondsAfterFinished).toBeGreaterThan(0);
    const policy = named(objects, 'NetworkPolicy', 'postgres-roles')!;
    expect(policy.spec.podSelector.matchLabels).toEqual({
      'app.kubernetes.io/name': 'postgres-roles',
    });
    expect(policy.spec.ingress).toBeUndefined();
    expect(policy.spec.egress).toEqual([
      {
        to: [{ podSelector: { matchLabels: { 'cnpg.io/cluster': 'policy-rollout-db' } } }],
        ports: [{ protocol: 'TCP', port: 5432 }],
      },
    ]);
    const postgres = named(objects, 'NetworkPolicy', 'postgres')!;
    const admitted = postgres.spec.ingress
      .filter((rule: { ports: { port: number }[] }) => rule.ports.some((p) => p.port === 5432))
      .flatMap((rule: { from: { podSelector?: { matchLabels: object } }[] }) =>
        rule.from.map((f) => f.podSelector?.matchLabels),
      );
    expect(admitted).toContainEqual({ 'app.kubernetes.io/name': 'postgres-roles' });
  });
});

describe('Postgres in the prod overlay', () => {
  const objects = rendered.prod;
  const cluster = named(objects, 'Cluster', 'policy-rollout-db')!;

  it('declares every service role in CloudNativePG, each with the password Secret its service reads', () => {
    const roles = cluster.spec.managed.roles.map(
      (r: { name: string; login: boolean; ensure: string; passwordSecret: { name: string } }) => [
        r.name,
        r.ensure,
        r.login,
        r.passwordSecret.name,
      ],
    );
    expect(roles.sort()).toEqual(
      Object.entries(KUBERNETES_DATABASE_ROLES)
        .map(([service, role]) => [role, 'present', true, `postgres-${service}`])
        .sort(),
    );
    for (const role of cluster.spec.managed.roles) {
      for (const power of ['superuser', 'createdb', 'createrole', 'replication', 'bypassrls'])
        expect([role.name, power, role[power] ?? false]).toEqual([role.name, power, false]);
    }
    // The Job's superuser Secret is the operator's.
    expect(cluster.spec.enableSuperuserAccess).toBe(true);
  });

  it.each([...Object.keys(KUBERNETES_DATABASE_ROLES), 'postgres-roles'])(
    'has %s reach Postgres over TLS, verify-full against the cluster CA',
    (name) => {
      const workload = named(objects, 'Deployment', name) ?? named(objects, 'Job', name)!;
      const pod = workload.spec.template.spec;
      const env = plainEnv(objects, pod.containers[0]);
      expect(env.DATABASE_SSL_MODE).toBe('verify-full');
      // The name CloudNativePG puts in the server's certificate.
      expect(new URL(env.DATABASE_URL).hostname).toBe(`${cluster.metadata.name}-rw`);
      expect(env.DATABASE_SSL_ROOT_CERT in mountedFiles(objects, pod, pod.containers[0])).toBe(
        true,
      );
      const volume = pod.volumes.find(
        (v: { secret?: { secretName: string } }) =>
          v.secret?.secretName === `${cluster.metadata.name}-ca`,
      );
      // Only the certificate: the CA's private key stays out of the pod.
      expect(volume.secret.items).toEqual([{ key: 'ca.crt', path: 'ca.crt' }]);
    },
  );
});

describe('the dev overlay', () => {
  const objects = rendered.dev;

  it('runs no service as production, and exposes nothing beyond the cluster', () => {
    for (const deployment of ofKind(objects, 'Deployment')) {
      const env = plainEnv(objects, containerOf(deployment));
      expect([deployment.metadata.name, env.NODE_ENV]).toEqual([
        deployment.metadata.name,
        'development',
      ]);
    }
    expect(ofKind(objects, 'Ingress')).toEqual([]);
    expect(
      ofKind(objects, 'Service').filter((s) => ['LoadBalancer', 'NodePort'].includes(s.spec.type)),
    ).toEqual([]);
  });

  it('makes its Secrets at deploy time: two deployments share no credential', () => {
    const values = (objects: K8sObject[]) =>
      ofKind(objects, 'Secret').flatMap((secret) =>
        Object.entries(secret.data)
          .filter(([key]) => key !== 'username')
          .map(([, v]) => v),
      );
    const first = values(objects);
    const second = new Set(values(render('dev')));
    expect(first.length).toBeGreaterThan(10);
    expect(first.filter((value) => second.has(value))).toEqual([]);
    // Each service's Secret is the role its URL names.
    for (const service of Object.keys(KUBERNETES_DATABASE_ROLES)) {
      const container = containerOf(named(objects, 'Deployment', service)!);
      const secret = objects.find(
        (o) => o.kind === 'Secret' && withoutHash(o.metadata.name) === `postgres-${service}`,
      )!;
      expect(Buffer.from(secret.data.username, 'base64').toString()).toBe(
        new URL(plainEnv(objects, container).DATABASE_URL).username,
      );
      expect(secretEnv(objects, container).DATABASE_PASSWORD).toMatch(/^[A-Za-z0-9_-]{32}$/);
    }
  });
});

describe('the repository', () => {
  const tracked = execFileSync('git', ['ls-files', 'deploy', 'docs', 'README.md'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);

  it('has no Secret with a value in any kustomization', () => {
    const kustomizations = tracked.filter((f) => f.endsWith('kustomization.yaml'));
    expect(kustomizations.length).toBeGreaterThan(5);
    for (const file of kustomizations) {
      const generators = (parse(readFileSync(join(ROOT, file), 'utf8')).secretGenerator ?? []) as {
        name: string;
        literals?: unknown;
        envs?: string[];
        files?: string[];
      }[];
      for (const generator of generators) {
        expect([file, generator.name, generator.literals]).toEqual([
          file,
          generator.name,
          undefined,
        ]);
        // What it reads is made at deploy time, and git ignores it.
        for (const source of [...(generator.envs ?? []), ...(generator.files ?? [])]) {
          const path = join(file, '..', source.replace(/^.*=/, ''));
          const ignored = execFileSync('git', ['check-ignore', '-q', '--no-index', path], {
            cwd: ROOT,
          });
          expect(ignored).toBeDefined();
        }
      }
    }
    expect(tracked.filter((f) => f.includes('/secrets/'))).toEqual([]);
  });

  it('publishes no key, token hash or password in deploy/, docs/ or the README', () => {
    const published = [
      // An actor-assertion key, private or public: <key id>:<32 bytes, base64url>.
      /[A-Za-z0-9_.-]+:[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/,
      // The SHA-256 of an API token.
      /\b[0-9a-f]{64}\b/,
      // A password given as a value (a reference such as $VARIABLE or <...> is fine).
      /(password|PASSWORD)\s*[=:]\s*(?![$<"'`{(])[A-Za-z0-9_+/=-]{8,}/,
      /dev-only/,
    ];
    for (const file of tracked) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const pattern of published) {
        const match = pattern.exec(text)?.[0];
        expect([file, match]).toEqual([file, undefined]);
      }
    }
  });
});
