import { writeDevSecrets } from '@rollout/launcher';
import type { JsonBody } from '@rollout/testing/kit';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, sep } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const ROOT = join(__dirname, '..', '..');
export const OVERLAYS = ['dev', 'prod', 'prod-keda'] as const;
export type Overlay = (typeof OVERLAYS)[number];

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: JsonBody;
};

/**
 * `kubectl kustomize` of an overlay, parsed. Fails loudly when kubectl is missing. The dev
 * overlay's Secrets are made at deploy time (`npm run deploy:dev-secrets`), so it is rendered
 * from a copy of deploy/k8s with a fresh set made as that script makes them: never with the
 * secrets of a developer's cluster.
 */
export function render(overlay: Overlay): K8sObject[] {
  if (overlay !== 'dev') return kustomize(join(ROOT, 'deploy', 'k8s'), overlay);
  const copy = mkdtempSync(join(tmpdir(), 'deploy-k8s-'));
  const developersSecrets = join(ROOT, 'deploy', 'k8s', 'overlays', 'dev', 'secrets');
  try {
    cpSync(join(ROOT, 'deploy', 'k8s'), copy, {
      recursive: true,
      filter: (source) =>
        source !== developersSecrets && !source.startsWith(developersSecrets + sep),
    });
    writeDevSecrets(join(copy, 'overlays', 'dev', 'secrets'));
    return kustomize(copy, overlay);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

function kustomize(k8s: string, overlay: Overlay): K8sObject[] {
  const run = spawnSync('kubectl', ['kustomize', join(k8s, 'overlays', overlay)], {
    encoding: 'utf8',
  });
  if (run.error)
    throw new Error(
      `kubectl is needed to render the manifests (apt-get install kubernetes-client): ${run.error.message}`,
    );
  if (run.status !== 0) throw new Error(`kubectl kustomize ${overlay} failed: ${run.stderr}`);
  const objects = parseAllDocuments(run.stdout)
    .map((doc) => doc.toJS() as K8sObject)
    .filter(Boolean);
  // kustomize folds long base64 values over lines, which the API server ignores; so do we.
  for (const secret of objects.filter((o) => o.kind === 'Secret')) {
    for (const key of Object.keys(secret.data ?? {}))
      secret.data[key] = String(secret.data[key]).replace(/\s/g, '');
  }
  return objects;
}

export const ofKind = (objects: K8sObject[], kind: string) =>
  objects.filter((o) => o.kind === kind);
export const named = (objects: K8sObject[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);

/** The env a container gets from its ConfigMaps (envFrom) and literal env entries. */
export function plainEnv(objects: K8sObject[], container: K8sObject): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    Object.assign(env, named(objects, 'ConfigMap', source.configMapRef.name)?.data ?? {});
  }
  for (const entry of container.env ?? [])
    if (entry.value !== undefined) env[entry.name] = entry.value;
  return env;
}

/** The env vars a container takes from Secrets, with the values of the rendered (dev) Secrets. */
export function secretEnv(
  objects: K8sObject[],
  container: K8sObject,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const entry of container.env ?? []) {
    const ref = entry.valueFrom?.secretKeyRef;
    if (!ref) continue;
    const secret = named(objects, 'Secret', ref.name);
    const encoded = secret?.data?.[ref.key];
    env[entry.name] =
      encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
  }
  return env;
}

/**
 * The files a container sees from ConfigMap and Secret volumes: absolute path -> content
 * (null for a Secret created out of band, whose content is not in the manifests). A path that
 * an env var names must be one of these, or the service fails at boot, far from this repository.
 */
export function mountedFiles(
  objects: K8sObject[],
  pod: K8sObject,
  container: K8sObject,
): Record<string, string | null> {
  const files: Record<string, string | null> = {};
  for (const mount of container.volumeMounts ?? []) {
    const volume = (pod.volumes ?? []).find((v: { name: string }) => v.name === mount.name);
    const source = volume?.configMap ?? volume?.secret;
    if (!source) continue;
    const data: Record<string, string> | undefined = volume.configMap
      ? named(objects, 'ConfigMap', source.name)?.data
      : secretData(named(objects, 'Secret', source.secretName));
    const items: { key: string; path: string }[] =
      source.items ?? Object.keys(data ?? {}).map((key) => ({ key, path: key }));
    for (const item of items) {
      if (data && data[item.key] === undefined) continue;
      const content = data ? data[item.key] : null;
      if (!mount.subPath) files[posix.join(mount.mountPath, item.path)] = content;
      else if (mount.subPath === item.path) files[mount.mountPath] = content;
    }
  }
  return files;
}

function secretData(secret: K8sObject | undefined): Record<string, string> | undefined {
  if (!secret) return undefined;
  const entries = Object.entries(secret.data ?? {}).map(([key, value]) => [
    key,
    Buffer.from(String(value), 'base64').toString('utf8'),
  ]);
  return Object.fromEntries(entries);
}
