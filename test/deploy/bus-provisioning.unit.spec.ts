import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BusUser } from '@rollout/provision';
import { K8sObject, OVERLAYS, ROOT, named, ofKind, plainEnv, render } from './render';

// The bus provisioning step in Kubernetes (docs/bus-security.md): a Job with its own NATS user
// creates the streams, consumers and buckets; no service can, nor has that user's secret. And
// the NATS the manifests run is the 2.9 the code is tested on.
const busUsers = JSON.parse(
  readFileSync(join(ROOT, 'deploy', 'k8s', 'base', 'nats', 'bus-users.json'), 'utf8'),
) as BusUser[];

const secretKeysOf = (container: K8sObject): string[] =>
  (container.env ?? [])
    .filter((e: { valueFrom?: unknown }) => e.valueFrom)
    .map(
      (e: { valueFrom: { secretKeyRef: { name: string; key: string } } }) =>
        `${e.valueFrom.secretKeyRef.name.replace(/-[a-z0-9]{10}$/, '')}/${e.valueFrom.secretKeyRef.key}`,
    );

describe.each(OVERLAYS)('the %s overlay', (overlay) => {
  const objects = render(overlay);
  const job = named(objects, 'Job', 'bus-provision');

  it('runs the provisioning tool of the build output as a Job, as the provisioner NATS user with its own secret', () => {
    expect(job).toBeDefined();
    const [container] = job!.spec.template.spec.containers;
    expect(container.command).toEqual(['node', 'dist/tools/provision/src/main.js']);
    // Its own image: the service images do not hold the provisioning step.
    expect(container.image).toMatch(/^policy-rollout\/bus-provision:/);
    expect(existsSync(join(ROOT, 'tools', 'provision', 'src', 'main.ts'))).toBe(true);
    expect(plainEnv(objects, container).NATS_USER).toBe('provisioner');
    expect(secretKeysOf(container)).toEqual(['nats-users/PROVISIONER_NATS_PASSWORD']);
    expect(busUsers.find((u) => u.user === 'provisioner')).toEqual({
      user: 'provisioner',
      password: '$PROVISIONER_NATS_PASSWORD',
      role: { kind: 'provisioner' },
    });
    // Retried while NATS starts, never restarted once done.
    expect(job!.spec.template.spec.restartPolicy).toBe('OnFailure');
    expect(job!.spec.backoffLimit).toBeGreaterThan(0);
  });

  it('gives no service the provisioner’s secret: each connects as its own NATS user', () => {
    for (const deployment of ofKind(objects, 'Deployment')) {
      const [container] = deployment.spec.template.spec.containers;
      expect([
        deployment.metadata.name,
        secretKeysOf(container).filter((k) => k.includes('PROVISIONER')),
      ]).toEqual([deployment.metadata.name, []]);
      expect(plainEnv(objects, container).NATS_USER).toBe(deployment.metadata.name);
    }
  });

  it('lets the Job reach NATS and nothing else', () => {
    const policy = named(objects, 'NetworkPolicy', 'bus-provision')!;
    expect(policy.spec.podSelector.matchLabels).toEqual({
      'app.kubernetes.io/name': 'bus-provision',
    });
    expect(policy.spec.ingress ?? []).toEqual([]);
    expect(policy.spec.egress).toEqual([
      {
        to: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'nats' } } }],
        ports: [{ protocol: 'TCP', port: 4222 }],
      },
    ]);
  });

  it('runs nats-server 2.9, the version the code is tested on', () => {
    const [nats] = named(objects, 'StatefulSet', 'nats')!.spec.template.spec.containers;
    expect(nats.image).toMatch(/^nats:2\.9\.\d+-alpine$/);
  });
});

describe('the prod overlay', () => {
  it('provisions over TLS with 3 replicas of every stream', () => {
    const objects = render('prod');
    const [container] = named(objects, 'Job', 'bus-provision')!.spec.template.spec.containers;
    const env = plainEnv(objects, container);
    expect([env.NATS_URL, env.NATS_STREAM_REPLICAS, env.NODE_EXTRA_CA_CERTS]).toEqual([
      'tls://nats:4222',
      '3',
      '/etc/nats-tls/ca.crt',
    ]);
  });
});
