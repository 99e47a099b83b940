import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { K8sObject, OVERLAYS, Overlay, ROOT, named, ofKind, plainEnv, render } from './render';

const rendered = Object.fromEntries(OVERLAYS.map((o) => [o, render(o)])) as Record<Overlay, K8sObject[]>;
const SERVICES = ['gateway', 'experiment-service', 'evaluator', 'enforcement-service', 'inspection-rules-service'];

/** The kubernetes-models class of an object, to validate it against the published schema. */
function modelOf(object: K8sObject): (new (data: unknown) => { validate(): void }) | undefined {
  const packages: Record<string, string> = { 'keda.sh': '@kubernetes-models/keda', 'postgresql.cnpg.io': '@kubernetes-models/cloudnative-pg' };
  const group = object.apiVersion.includes('/') ? object.apiVersion.split('/')[0] : '';
  const pkg = packages[group] ?? 'kubernetes-models';
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(`${pkg}/${object.apiVersion}/${object.kind}`) as Record<string, new (data: unknown) => { validate(): void }>;
  return module[object.kind];
}

describe.each(OVERLAYS)('the %s overlay', (overlay) => {
  const objects = rendered[overlay];
  const deployments = ofKind(objects, 'Deployment');

  it('renders every service, in the policy-rollout namespace', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...SERVICES].sort());
    for (const object of objects.filter((o) => o.kind !== 'Namespace')) {
      expect(`${object.kind}/${object.metadata.name} in ${object.metadata.namespace}`).toBe(
        `${object.kind}/${object.metadata.name} in policy-rollout`,
      );
    }
  });

  it('validates every object against its Kubernetes (or CRD) schema', () => {
    for (const object of objects) {
      const Model = modelOf(object);
      expect(Model).toBeDefined();
      expect(() => new Model!(object).validate()).not.toThrow();
    }
  });

  it.each(SERVICES)('runs %s safely: probes, limits, non-root, disruption budget, graceful stop', (name) => {
    const deployment = named(objects, 'Deployment', name)!;
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    const env = plainEnv(objects, container);
    const http = container.ports.find((p: { name: string }) => p.name === 'http');
    expect(String(http.containerPort)).toBe(env.PORT);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.resources.requests).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
    expect(container.resources.limits).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(named(objects, 'ServiceAccount', pod.serviceAccountName)).toBeDefined();
    const budgets = ofKind(objects, 'PodDisruptionBudget').filter(
      (pdb) => pdb.spec.selector.matchLabels['app.kubernetes.io/name'] === name,
    );
    expect(budgets).toHaveLength(1);
    expect(pod.topologySpreadConstraints.map((c: { topologyKey: string }) => c.topologyKey)).toContain('kubernetes.io/hostname');
    const preStopSeconds = Number(container.lifecycle.preStop.exec.command[1]);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(preStopSeconds + Number(env.SHUTDOWN_TIMEOUT_MS) / 1000);
  });

  it('exposes only the gateway, and lets the backends be reached only from it', () => {
    const ingresses = ofKind(objects, 'Ingress').concat(ofKind(objects, 'HTTPRoute'));
    expect(ingresses.map((i) => i.spec.rules[0].http.paths[0].backend.service.name)).toEqual(['gateway']);
    expect(ofKind(objects, 'Service').filter((s) => s.spec.type === 'LoadBalancer' || s.spec.type === 'NodePort')).toEqual([]);
    const deny = named(objects, 'NetworkPolicy', 'default-deny')!;
    expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    for (const name of SERVICES.filter((s) => s !== 'gateway')) {
      const policy = named(objects, 'NetworkPolicy', name)!;
      expect(policy.spec.ingress).toEqual([
        { from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'gateway' } } }], ports: [{ protocol: 'TCP', port: 8080 }] },
      ]);
      const egressPorts = policy.spec.egress.flatMap((rule: { ports: { port: number }[] }) => rule.ports.map((p) => p.port));
      expect(egressPorts.sort()).toEqual([4222, 5432]);
    }
  });

  it('scales the gateway on CPU', () => {
    expect(named(objects, 'HorizontalPodAutoscaler', 'gateway')?.spec.scaleTargetRef.name).toBe('gateway');
  });
});

describe('the prod overlay', () => {
  const objects = rendered.prod;

  it('runs NATS as a 3-node JetStream cluster on persistent volumes, with TLS and auth', () => {
    const nats = named(objects, 'StatefulSet', 'nats')!;
    expect(nats.spec.replicas).toBe(3);
    expect(nats.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBeDefined();
    const conf: string = named(objects, 'ConfigMap', 'nats-config')!.data['nats.conf'];
    expect(conf).toMatch(/cluster \{[\s\S]*routes/);
    expect(conf).toMatch(/tls \{/);
    expect(conf).toMatch(/authorization \{/);
  });

  it('keeps Postgres in a CloudNativePG cluster', () => {
    expect(named(objects, 'Cluster', 'policy-rollout-db')?.spec.instances).toBe(3);
  });

  it('has services use TLS to NATS and secrets only by reference', () => {
    expect(ofKind(objects, 'Secret')).toEqual([]);
    for (const deployment of ofKind(objects, 'Deployment')) {
      const env = plainEnv(objects, deployment.spec.template.spec.containers[0]);
      expect(env.NATS_URL).toMatch(/^tls:\/\//);
    }
  });

  it('pins every image', () => {
    const images = [...ofKind(objects, 'Deployment'), ...ofKind(objects, 'StatefulSet')].flatMap((o) =>
      o.spec.template.spec.containers.map((c: { image: string }) => c.image),
    );
    for (const image of images) expect(image).toMatch(/:(?!latest$)[\w.-]+$|@sha256:/);
  });

  it('can scale the evaluator on JetStream lag with KEDA instead of CPU', () => {
    const keda = rendered['prod-keda'];
    expect(named(keda, 'ScaledObject', 'evaluator')?.spec.triggers[0].type).toBe('nats-jetstream');
    expect(named(keda, 'HorizontalPodAutoscaler', 'evaluator')).toBeUndefined();
    expect(named(objects, 'HorizontalPodAutoscaler', 'evaluator')).toBeDefined();
  });
});

describe('the image recipe', () => {
  const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
  const instructions = dockerfile.split('\n').filter((line) => /^[A-Z]+\s/.test(line));

  it('copies only paths that exist in the repository', () => {
    const copies = instructions.filter((line) => line.startsWith('COPY ') && !line.includes('--from='));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const sources = copy.split(/\s+/).slice(1, -1);
      for (const source of sources) expect(`${source}: ${existsSync(join(ROOT, source))}`).toBe(`${source}: true`);
    }
  });

  it('runs as a non-root user, with node as PID 1 and no baked-in env files', () => {
    const users = instructions.filter((line) => line.startsWith('USER '));
    expect(users.at(-1)).toBe('USER node');
    expect(instructions.at(-1)).toBe('CMD ["node", "main.js"]');
    expect(dockerfile).not.toMatch(/\.env/);
    expect(dockerfile).not.toMatch(/^HEALTHCHECK/m);
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['.env', '.env.*', 'node_modules', '.git']));
  });
});
