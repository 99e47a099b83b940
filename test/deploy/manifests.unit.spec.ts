import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { EXPERIMENT_SUBJECTS } from '@rollout/contracts';
import { BUS_USERS_FILE, renderBusAuthorization } from '@rollout/launcher';
import { BusUser } from '@rollout/provision';
import {
  ActorAssertionSigner,
  ActorAssertionVerifier,
  parseBusKey,
} from '@rollout/platform/bus-security';
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

const rendered = Object.fromEntries(OVERLAYS.map((o) => [o, render(o)])) as Record<
  Overlay,
  K8sObject[]
>;
const SERVICES = [
  'gateway',
  'experiment-service',
  'evaluator',
  'enforcement-service',
  'inspection-rules-service',
  'budget-adapter',
];

/** The kubernetes-models class of an object, to validate it against the published schema. */
function modelOf(object: K8sObject): (new (data: unknown) => { validate(): void }) | undefined {
  const packages: Record<string, string> = {
    'keda.sh': '@kubernetes-models/keda',
    'postgresql.cnpg.io': '@kubernetes-models/cloudnative-pg',
  };
  const group = object.apiVersion.includes('/') ? object.apiVersion.split('/')[0] : '';
  const pkg = packages[group] ?? 'kubernetes-models';
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(`${pkg}/${object.apiVersion}/${object.kind}`) as Record<
    string,
    new (data: unknown) => { validate(): void }
  >;
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

  it.each(SERVICES)(
    'runs %s safely: probes, limits, non-root, disruption budget, graceful stop',
    (name) => {
      const deployment = named(objects, 'Deployment', name)!;
      const pod = deployment.spec.template.spec;
      const [container] = pod.containers;
      const env = plainEnv(objects, container);
      const http = container.ports.find((p: { name: string }) => p.name === 'http');
      expect(String(http.containerPort)).toBe(env.PORT);
      expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(container.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container.resources.requests).toEqual(
        expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }),
      );
      expect(container.resources.limits).toEqual(
        expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }),
      );
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
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
      expect(
        pod.topologySpreadConstraints.map((c: { topologyKey: string }) => c.topologyKey),
      ).toContain('kubernetes.io/hostname');
      const preStopSeconds = Number(container.lifecycle.preStop.exec.command[1]);
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(
        preStopSeconds + Number(env.SHUTDOWN_TIMEOUT_MS) / 1000,
      );
    },
  );

  it('exposes only the gateway, and lets the backends be reached only from it', () => {
    const ingresses = ofKind(objects, 'Ingress').concat(ofKind(objects, 'HTTPRoute'));
    // The dev overlay exposes nothing beyond the cluster unless asked (components/ingress).
    expect(ingresses.map((i) => i.spec.rules[0].http.paths[0].backend.service.name)).toEqual(
      overlay === 'dev' ? [] : ['gateway'],
    );
    expect(
      ofKind(objects, 'Service').filter(
        (s) => s.spec.type === 'LoadBalancer' || s.spec.type === 'NodePort',
      ),
    ).toEqual([]);
    const deny = named(objects, 'NetworkPolicy', 'default-deny')!;
    expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    for (const name of SERVICES.filter((s) => s !== 'gateway')) {
      const policy = named(objects, 'NetworkPolicy', name)!;
      expect(policy.spec.ingress).toEqual([
        {
          from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'gateway' } } }],
          ports: [{ protocol: 'TCP', port: 8080 }],
        },
      ]);
      const egressPorts = policy.spec.egress.flatMap((rule: { ports: { port: number }[] }) =>
        rule.ports.map((p) => p.port),
      );
      expect(egressPorts.sort()).toEqual([4222, 5432]);
    }
  });

  it('scales the gateway on CPU', () => {
    expect(named(objects, 'HorizontalPodAutoscaler', 'gateway')?.spec.scaleTargetRef.name).toBe(
      'gateway',
    );
  });

  it.each(SERVICES)('mounts in %s every file that its env names', (name) => {
    const pod = named(objects, 'Deployment', name)!.spec.template.spec;
    const [container] = pod.containers;
    const files = mountedFiles(objects, pod, container);
    const paths = Object.entries(plainEnv(objects, container)).filter(([, value]) =>
      value.startsWith('/'),
    );
    for (const [variable, path] of paths)
      expect(`${variable}=${path}: ${path in files}`).toBe(`${variable}=${path}: true`);
  });

  /** The path an env var of a Deployment names, and the content mounted there. */
  const fileOf = (name: string, variable: string) => {
    const pod = named(objects, 'Deployment', name)!.spec.template.spec;
    const path = plainEnv(objects, pod.containers[0])[variable];
    return { path, text: mountedFiles(objects, pod, pod.containers[0])[path] ?? '' };
  };

  it('mounts the enforcement filter chain from a ConfigMap', () => {
    const enforcement = fileOf('enforcement-service', 'ENFORCEMENT_CONFIG_FILE');
    expect(enforcement.path).toBe('/etc/policy-rollout/enforcement.yaml');
    expect(parse(enforcement.text)).toEqual(
      expect.objectContaining({ enabled_filters: expect.any(Array) }),
    );
  });

  it("mounts the service's own built-in inspection rules from a ConfigMap", () => {
    const rules = fileOf('inspection-rules-service', 'INSPECTION_BUILT_IN_RULES');
    expect(rules.path).toBe('/etc/policy-rollout/builtin-rules.yaml');
    // deploy/k8s/base/inspection-rules-service/builtin-rules.yaml must stay a copy of these.
    const shipped = readFileSync(
      join(ROOT, 'apps', 'inspection-rules-service', 'built-in-rules.yaml'),
      'utf8',
    );
    expect(parse(rules.text)).toEqual(parse(shipped));
  });

  it('lets every pod resolve names, and only through the cluster DNS', () => {
    const dns = named(objects, 'NetworkPolicy', 'allow-dns')!;
    expect(dns.spec.podSelector).toEqual({});
    expect(dns.spec.egress).toEqual([
      {
        to: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
            podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
          },
        ],
        ports: [
          { protocol: 'UDP', port: 53 },
          { protocol: 'TCP', port: 53 },
        ],
      },
    ]);
  });
});

describe('the prod overlay', () => {
  const objects = rendered.prod;

  it('runs NATS as a 3-node JetStream cluster on persistent volumes, with TLS and auth', () => {
    const nats = named(objects, 'StatefulSet', 'nats')!;
    expect(nats.spec.replicas).toBe(3);
    const conf: string = named(objects, 'ConfigMap', 'nats-config')!.data['nats.conf'];
    // JetStream stores on the claim of each pod, not on the container's disk.
    const storeDir = /store_dir:\s*(\S+)/.exec(conf)?.[1];
    const [claim] = nats.spec.volumeClaimTemplates;
    expect(claim.spec.resources.requests.storage).toMatch(/^\d+Gi$/);
    expect(nats.spec.template.spec.containers[0].volumeMounts).toContainEqual({
      name: claim.metadata.name,
      mountPath: storeDir,
    });
    expect(conf).toMatch(/routes: \[[^\]]*nats-0[^\]]*nats-1[^\]]*nats-2/);
    expect(conf).toMatch(/cluster \{[\s\S]*routes/);
    expect(conf).toMatch(/tls \{/);
    expect(conf).toMatch(/^\s*include \.\/authorization\.conf$/m);
  });

  it('keeps Postgres in a CloudNativePG cluster', () => {
    expect(named(objects, 'Cluster', 'policy-rollout-db')?.spec.instances).toBe(3);
  });

  it('serves the gateway over HTTPS', () => {
    const ingress = named(objects, 'Ingress', 'gateway')!;
    expect(ingress.spec.tls).toEqual([
      { hosts: [ingress.spec.rules[0].host], secretName: 'gateway-tls' },
    ]);
  });

  it('has services use TLS to NATS, the provisioning Job replicate the streams on every NATS node, and secrets only by reference', () => {
    expect(ofKind(objects, 'Secret')).toEqual([]);
    const nodes = named(objects, 'StatefulSet', 'nats')!.spec.replicas;
    for (const deployment of ofKind(objects, 'Deployment')) {
      const env = plainEnv(objects, deployment.spec.template.spec.containers[0]);
      expect(env.NATS_URL).toMatch(/^tls:\/\//);
    }
    const [job] = named(objects, 'Job', 'bus-provision')!.spec.template.spec.containers;
    expect(plainEnv(objects, job).NATS_STREAM_REPLICAS).toBe(String(nodes));
  });

  it('pins every image', () => {
    const images = [...ofKind(objects, 'Deployment'), ...ofKind(objects, 'StatefulSet')].flatMap(
      (o) => o.spec.template.spec.containers.map((c: { image: string }) => c.image),
    );
    for (const image of images) expect(image).toMatch(/:(?!latest$)[\w.-]+$|@sha256:/);
  });

  it('can scale the evaluator on JetStream lag with KEDA instead of CPU', () => {
    const keda = rendered['prod-keda'];
    expect(named(keda, 'ScaledObject', 'evaluator')?.spec.triggers[0].type).toBe('nats-jetstream');
    expect(named(keda, 'HorizontalPodAutoscaler', 'evaluator')).toBeUndefined();
    // KEDA reads the lag from the NATS monitoring port, which default-deny would otherwise block.
    const monitoring = ofKind(keda, 'NetworkPolicy').filter(
      (p) =>
        p.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] === 'nats' &&
        JSON.stringify(p.spec.ingress).includes('"keda"'),
    );
    expect(
      monitoring.flatMap((p) =>
        p.spec.ingress.flatMap((r: { ports: { port: number }[] }) => r.ports.map((x) => x.port)),
      ),
    ).toEqual([8222]);
    expect(
      named(keda, 'ScaledObject', 'evaluator')?.spec.triggers[0].metadata
        .natsServerMonitoringEndpoint,
    ).toMatch(/:8222$/);
    expect(named(objects, 'HorizontalPodAutoscaler', 'evaluator')).toBeDefined();
  });
});

describe.each(OVERLAYS)('the bus of the %s overlay (docs/bus-security.md)', (overlay) => {
  const objects = rendered[overlay];
  const users = JSON.parse(readFileSync(BUS_USERS_FILE, 'utf8')) as BusUser[];
  const authorization = objects.find(
    (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('nats-authorization'),
  )!;

  it('gives NATS the users and permissions that bus-users.json generates, their passwords from the nats-users Secret', () => {
    expect(authorization.data['authorization.conf']).toBe(renderBusAuthorization(users));
    const nats = named(objects, 'StatefulSet', 'nats')!.spec.template.spec;
    expect(nats.containers[0].envFrom).toEqual([
      { secretRef: { name: expect.stringMatching(/^nats-users/) } },
    ]);
    const config = nats.volumes.find((v: { name: string }) => v.name === 'config');
    expect(
      config.projected.sources.map((s: { configMap: { name: string } }) => s.configMap.name),
    ).toEqual(['nats-config', authorization.metadata.name]);
  });

  it('runs each service as its own NATS user, and has the gateway sign actor assertions that the services verify', () => {
    const roleOf: Record<string, string> = { 'budget-adapter': 'policy-adapter' };
    for (const deployment of ofKind(objects, 'Deployment')) {
      const name = deployment.metadata.name;
      const [container] = deployment.spec.template.spec.containers;
      const env = plainEnv(objects, container);
      const user = users.find((u) => u.user === env.NATS_USER);
      expect([name, user?.role.kind]).toEqual([name, roleOf[name] ?? name]);
      if (user?.role.kind === 'policy-adapter') expect(user.role.adapter).toBe(env.ADAPTER_NAME);
      const password = container.env.find((e: { name: string }) => e.name === 'NATS_PASSWORD')
        .valueFrom.secretKeyRef;
      expect([name, password.name.replace(/-[a-z0-9]{10}$/, ''), `$${password.key}`]).toEqual([
        name,
        'nats-users',
        user!.password,
      ]);
      const keys = Object.fromEntries(
        container.env
          .filter((e: { name: string }) => e.name.startsWith('BUS_'))
          .map(
            (e: { name: string; valueFrom: { secretKeyRef: { name: string; key: string } } }) => [
              e.name,
              e.valueFrom.secretKeyRef.key,
            ],
          ),
      );
      const expected: Record<string, Record<string, string>> = {
        gateway: { BUS_SIGNING_KEY: 'signing-key' },
        'budget-adapter': {},
        evaluator: { BUS_VERIFY_KEYS: 'verify-keys', BUS_SIGNING_KEY: 'evaluator-signing-key' },
      };
      expect([name, keys]).toEqual([name, expected[name] ?? { BUS_VERIFY_KEYS: 'verify-keys' }]);
    }
  });

  if (overlay === 'dev') {
    it('has a key pair whose verify key checks what the signing key signs, and a password for every NATS user', () => {
      const [gateway] = named(objects, 'Deployment', 'gateway')!.spec.template.spec.containers;
      const [evaluator] = named(objects, 'Deployment', 'evaluator')!.spec.template.spec.containers;
      const signer = new ActorAssertionSigner(
        parseBusKey(secretEnv(objects, gateway).BUS_SIGNING_KEY!)!,
        10_000,
      );
      const verifier = new ActorAssertionVerifier(
        secretEnv(objects, evaluator)
          .BUS_VERIFY_KEYS!.split(',')
          .map((key) => parseBusKey(key)!),
        { maxTtlMs: 60_000, clockSkewMs: 0 },
      );
      const payload = new TextEncoder().encode('{}');
      expect(
        verifier.verify(
          's',
          payload,
          signer.sign('s', payload, { actor: 'a', roles: [], projects: '*' }),
        ).actor,
      ).toBe('a');
      // The evaluator's system key is trusted for its auto-stop.
      const stop = EXPERIMENT_SUBJECTS.stopPreview;
      const evaluatorSigner = new ActorAssertionSigner(
        parseBusKey(secretEnv(objects, evaluator).BUS_SIGNING_KEY!)!,
        10_000,
      );
      expect(
        verifier.verify(
          stop,
          payload,
          evaluatorSigner.sign(stop, payload, {
            actor: 'system:evaluator',
            roles: ['editor'],
            projects: ['acme'],
          }),
        ).actor,
      ).toBe('system:evaluator');
      const secret = objects.find(
        (o) => o.kind === 'Secret' && o.metadata.name.startsWith('nats-users'),
      )!;
      expect(Object.keys(secret.data).sort()).toEqual(users.map((u) => u.password.slice(1)).sort());
    });
  }
});

describe('the image recipe', () => {
  const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
  const instructions = dockerfile.split('\n').filter((line) => /^[A-Z]+\s/.test(line));

  it('copies only paths that exist in the repository', () => {
    const copies = instructions.filter(
      (line) => line.startsWith('COPY ') && !line.includes('--from='),
    );
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const sources = copy.split(/\s+/).slice(1, -1);
      for (const source of sources)
        expect(`${source}: ${existsSync(join(ROOT, source))}`).toBe(`${source}: true`);
    }
  });

  it("puts into the image only the build output (which holds no test kit), production dependencies and the app's data files", () => {
    const stages = dockerfile.split(/^FROM /m);
    const runtimeCopies = stages
      .at(-1)!
      .split('\n')
      .filter((line) => line.startsWith('COPY '));
    expect(runtimeCopies).toEqual([
      'COPY --from=prod-deps /app/node_modules ./node_modules',
      'COPY --from=build /app/dist ./dist',
      'COPY --from=app-files /files/ ./',
    ]);
    const appFiles = stages.find((stage) => stage.includes(' AS app-files'))!;
    expect(appFiles).toMatch(/find "apps\/\$\{APP\}" -maxdepth 1 -type f -name '\*\.yaml'/);
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
