/**
 * A contract package: the major is part of its name (`system.v1`), the semantic version
 * says what changed within that major. Alpha packages (`v2alpha`) live in their own lib.
 */
export interface ContractPackage {
  /** e.g. `system.v1` */
  name: string;
  /** semver, e.g. `1.0.0` */
  version: string;
  /** Optional behaviours (reverse-DNS names) the speaker supports for this package. */
  features?: string[];
}

/** The services reached over NATS request/reply, in the order the gateway lists them. */
export const BACKEND_SERVICES = [
  'experiment-service',
  'evaluator',
  'enforcement-service',
  'inspection-rules-service',
] as const;

export type BackendService = (typeof BACKEND_SERVICES)[number];
export type ServiceName = 'gateway' | BackendService;

/** A package is stable (`v1`: CI refuses breaking changes) or alpha (`v2alpha`: anything goes). */
export type Stability = 'stable' | 'alpha';

/**
 * Envoy's deprecation, applied here: nothing is deprecated without a replacement, the minor
 * version that deprecated it is recorded, and use is first warned about, then (when
 * `disallowedByDefault`) rejected unless the runtime override `deprecationOverrideEnv(...)` is set.
 */
export interface Deprecation {
  /** `Type.field` (a field), `Type` (a message), or a NATS subject of the package. */
  target: string;
  /** The version that deprecated it, e.g. `1.3.0`. */
  since: string;
  /** What to use instead: `Type.field`, `Type` or a subject of the same package. */
  replacement: string;
  /** Reject its use (FAILED_PRECONDITION) unless the override env var allows it. */
  disallowedByDefault?: boolean;
  /** RFC 3339 date after which it may be gone (HTTP `Sunset` header). */
  sunset?: string;
  /** RFC 3339 date the deprecation took effect (HTTP `Deprecation: @<unix seconds>`, RFC 9745). */
  date?: string;
}

/** A NATS request/reply subject (NestJS NATS transport), served by a service's queue group. */
export interface RequestReplyChannel {
  /** The subject; `{name}` marks a parameter, e.g. `system.v1.{service}.info`. */
  subject: string;
  /** The serving service (its queue group); absent when a `{service}` parameter names it. */
  service?: ServiceName;
  /** Type names (of this package) of the request and the reply. */
  request: string;
  reply: string;
  /**
   * The body on the wire: `nestjs` (default) the NestJS NATS transport's packets
   * (`{pattern, data, id}` in, `{id, response | err}` out); `plain` the JSON message itself, both
   * ways (for processes that are not NestJS services, e.g. `adapter.v1` adapters).
   */
  envelope?: 'nestjs' | 'plain';
}

/** A JetStream subject: `in` is published by clients and consumed by `service`; `out` the reverse. */
export interface StreamChannel {
  subject: string;
  stream: string;
  direction: 'in' | 'out';
  service: ServiceName;
  /** Type name (of this package) of each message's payload. */
  message: string;
}

/**
 * The one place a contract package describes itself (`package.ts` beside its types): the
 * contracts tooling (`npm run contracts`) reads it to generate the JSON Schemas, the lock
 * and the AsyncAPI document, and CI checks every change against the previous lock.
 */
export interface ContractPackageDefinition extends Omit<ContractPackage, 'features'> {
  stability: Stability;
  /** Type names of what clients send (a required field added to one breaks them). */
  requests: readonly string[];
  /** Type names of what services answer (a required field removed from one breaks clients). */
  replies: readonly string[];
  /** Type names of stream messages (stored and replayed, so checked both ways). */
  events: readonly string[];
  /** Resources (read and written, so checked both ways). */
  resources: readonly string[];
  /** Field names removed from a type that must never be used again: `{ Type: ['field'] }`. */
  reserved?: Readonly<Record<string, readonly string[]>>;
  deprecations?: readonly Deprecation[];
  /** Optional behaviours a client may declare in `Client-Features` (reverse-DNS names). */
  features?: readonly string[];
  requestReply?: readonly RequestReplyChannel[];
  streams?: readonly StreamChannel[];
}

export function definePackage<const T extends ContractPackageDefinition>(definition: T): T {
  return definition;
}

/** The `{name, version, features}` a service reports for a package it speaks. */
export function contractPackageOf(definition: ContractPackageDefinition): ContractPackage {
  const { name, version, features } = definition;
  return features?.length ? { name, version, features: [...features] } : { name, version };
}

/**
 * Headers that identify a client on every NATS call and HTTP request (never in payloads):
 * `Contract-Version: experiment.v1/1.2.0`, `User-Agent: acme-exporter/2.3.1`,
 * `Client-Features: dev.policy-rollout.traffic.batch, com.acme.widget`.
 */
export const CONTRACT_HEADERS = {
  contractVersion: 'Contract-Version',
  userAgent: 'User-Agent',
  clientFeatures: 'Client-Features',
} as const;

/** Counter of uses of deprecated fields, labelled `{contract, field, client}`. */
export const DEPRECATED_FEATURE_USE_METRIC = 'deprecated_feature_use_total';

export function formatContractVersion(definition: ContractPackage): string {
  return `${definition.name}/${definition.version}`;
}

export function parseContractVersion(header: string | undefined): ContractPackage | undefined {
  const match =
    /^\s*([a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*\.v\d+(?:alpha\d*|beta\d*)?)\/(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\s*$/.exec(
      header ?? '',
    );
  return match ? { name: match[1], version: match[2] } : undefined;
}

/** A feature name: reverse-DNS, e.g. `dev.policy-rollout.traffic.batch`. */
export const REVERSE_DNS = /^[a-z0-9-]+(?:\.[a-z0-9_-]+)+$/;

export function parseClientFeatures(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((feature) => feature.trim())
    .filter((feature) => REVERSE_DNS.test(feature));
}

/**
 * The env var that allows a disallowed-by-default deprecated target at runtime, e.g.
 * `CONTRACTS_ALLOW_DEPRECATED_EXPERIMENT_V1_FIREWALLRULE_DESCRIPTION=true`.
 */
export function deprecationOverrideEnv(packageName: string, target: string): string {
  return `CONTRACTS_ALLOW_DEPRECATED_${`${packageName}_${target}`.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/** A client as its `User-Agent` names it: the first product token, `name/version`. */
export interface ClientIdentity {
  name: string;
  version?: string;
}

const PRODUCT =
  /^\s*([A-Za-z0-9][A-Za-z0-9._-]{0,62})(?:\/([A-Za-z0-9][A-Za-z0-9.+_-]{0,31}))?(?:\s|$)/;

/** `acme-exporter/2.3.1 (linux)` → `{name: 'acme-exporter', version: '2.3.1'}`; garbage → undefined. */
export function parseUserAgent(header: string | undefined): ClientIdentity | undefined {
  const match = PRODUCT.exec(header ?? '');
  if (!match) return undefined;
  return match[2]
    ? { name: match[1].toLowerCase(), version: match[2] }
    : { name: match[1].toLowerCase() };
}

/**
 * The name a client is counted and logged under: its User-Agent product, or `unknown`.
 * (Metrics bound the number of distinct names on top of this.)
 */
export function clientNameOf(userAgent: string | undefined): string {
  return parseUserAgent(userAgent)?.name ?? 'unknown';
}

/** The package a subject belongs to (its name is the subject's prefix), among `packages`. */
export function packageOfSubject<P extends { name: string }>(
  subject: string,
  packages: readonly P[],
): P | undefined {
  let found: P | undefined;
  for (const candidate of packages) {
    if (
      subject.startsWith(`${candidate.name}.`) &&
      (!found || candidate.name.length > found.name.length)
    )
      found = candidate;
  }
  return found;
}

/**
 * Whether a service speaking `served` can answer a client that sent `Contract-Version: header`.
 * No header, or one we cannot parse, is accepted (older clients); a package the service speaks
 * is accepted at any minor (minors are compatible both ways); a package of the same family at
 * another major is refused (`servedMajors` says what to use instead). A package of another
 * family is not this service's business: accepted.
 */
export function checkContractVersion(
  header: string | undefined,
  served: readonly ContractPackage[],
):
  | { ok: true; contract?: ContractPackage }
  | { ok: false; requested: ContractPackage; servedMajors: string[] } {
  const requested = parseContractVersion(header);
  if (!requested) return { ok: true };
  if (served.some((p) => p.name === requested.name)) return { ok: true, contract: requested };
  const family = familyOf(requested.name);
  const servedMajors = served.filter((p) => familyOf(p.name) === family).map((p) => p.name);
  return servedMajors.length ? { ok: false, requested, servedMajors } : { ok: true };
}

/** `experiment.v1` → `experiment`, `traffic.v2alpha` → `traffic`. */
export function familyOf(packageName: string): string {
  return packageName.replace(/\.v\d+(?:alpha\d*|beta\d*)?$/, '');
}

/** One use of a deprecated target found in a request. */
export interface DeprecatedUse {
  /** The package, e.g. `experiment.v1`. */
  contract: string;
  deprecation: Deprecation;
  /** The env var that allows it when it is disallowed by default. */
  overrideEnv: string;
}

/**
 * Which deprecated targets a request on `subject` uses, given the packages' definitions: the
 * subject itself, the request message, or a top-level field of the request that is present
 * (not undefined) in the payload.
 */
export function findDeprecatedUses(
  definitions: readonly ContractPackageDefinition[],
  subject: string,
  payload: unknown,
): DeprecatedUse[] {
  const definition = packageOfSubject(subject, definitions);
  if (!definition?.deprecations?.length) return [];
  const channel = definition.requestReply?.find((c) => c.subject === subject);
  const fields = payload && typeof payload === 'object' ? (payload as Record<string, unknown>) : {};
  const uses: DeprecatedUse[] = [];
  for (const deprecation of definition.deprecations) {
    const { target } = deprecation;
    const [type, field, ...rest] = target.split('.');
    const used =
      target === subject ||
      (channel !== undefined &&
        rest.length === 0 &&
        type === channel.request &&
        (field === undefined || fields[field] !== undefined));
    if (used)
      uses.push({
        contract: definition.name,
        deprecation,
        overrideEnv: deprecationOverrideEnv(definition.name, target),
      });
  }
  return uses;
}

/**
 * Envoy's warn-then-fatal: a use is warned about, unless its deprecation is disallowed by
 * default and its override env var is not `true`, then refused.
 */
export function isRefused(
  use: DeprecatedUse,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  return use.deprecation.disallowedByDefault === true && env[use.overrideEnv] !== 'true';
}

/**
 * HTTP response headers announcing a deprecation: `Deprecation: @<unix seconds>` (RFC 9745,
 * when the date is known), `Sunset: <HTTP-date>` (RFC 8594), and a `Link` to the docs.
 */
export function deprecationHeaders(
  deprecation: Deprecation,
  docs?: string,
): Record<string, string> {
  const headers: Record<string, string> = {};
  const date = deprecation.date ? Date.parse(deprecation.date) : NaN;
  if (!Number.isNaN(date)) headers['Deprecation'] = `@${Math.floor(date / 1000)}`;
  const sunset = deprecation.sunset ? Date.parse(deprecation.sunset) : NaN;
  if (!Number.isNaN(sunset)) headers['Sunset'] = new Date(sunset).toUTCString();
  if (docs) headers['Link'] = `<${docs}>; rel="deprecation"; type="text/html"`;
  return headers;
}
