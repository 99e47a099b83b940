/** The major is in the name (`system.v1`); the semantic version says what changed within it. */
export interface ContractPackage {
  name: string;
  version: string;
  /** Optional behaviours, as reverse-DNS names. */
  features?: string[];
}

/** In the order the gateway lists them. */
export const BACKEND_SERVICES = [
  'experiment-service',
  'evaluator',
  'enforcement-service',
  'inspection-rules-service',
] as const;

export type BackendService = (typeof BACKEND_SERVICES)[number];
export type ServiceName = 'gateway' | BackendService;

/** CI refuses breaking changes to a stable package; an alpha one may break. */
export type Stability = 'stable' | 'alpha';

/** Envoy's deprecation: always a replacement, warned about, then refused unless overridden. */
export interface Deprecation {
  /** `Type.field` (a field), `Type` (a message), or a NATS subject of the package. */
  target: string;
  since: string;
  replacement: string;
  disallowedByDefault?: boolean;
  /** RFC 3339; the HTTP `Sunset` header. */
  sunset?: string;
  /** RFC 3339; the HTTP `Deprecation` header (RFC 9745). */
  date?: string;
}

export interface RequestReplyChannel {
  /** `{name}` marks a parameter, e.g. `system.v1.{service}.info`. */
  subject: string;
  /** Absent when a `{service}` parameter names it. */
  service?: ServiceName;
  request: string;
  reply: string;
  /** `nestjs` (default): the NestJS transport's packets; `plain`: the message itself (adapters). */
  envelope?: 'nestjs' | 'plain';
}

/** `in`: published by clients, consumed by `service`; `out`: the reverse. */
export interface StreamChannel {
  subject: string;
  stream: string;
  direction: 'in' | 'out';
  service: ServiceName;
  message: string;
}

/** What `npm run contracts` generates the schemas, lock and AsyncAPI document from. */
export interface ContractPackageDefinition extends Omit<ContractPackage, 'features'> {
  stability: Stability;
  /** Type names of what clients send (a required field added to one breaks them). */
  requests: readonly string[];
  /** Type names of what services answer (a required field removed from one breaks clients). */
  replies: readonly string[];
  /** Type names of stream messages (stored and replayed, so checked both ways). */
  events: readonly string[];
  /** Read and written, so checked both ways. */
  resources: readonly string[];
  /** Removed fields, never to be reused: `{ Type: ['field'] }`. */
  reserved?: Readonly<Record<string, readonly string[]>>;
  deprecations?: readonly Deprecation[];
  features?: readonly string[];
  requestReply?: readonly RequestReplyChannel[];
  streams?: readonly StreamChannel[];
}

export function definePackage<const T extends ContractPackageDefinition>(definition: T): T {
  return definition;
}

export function contractPackageOf(definition: ContractPackageDefinition): ContractPackage {
  const { name, version, features } = definition;
  return features?.length ? { name, version, features: [...features] } : { name, version };
}

/** On every NATS call and HTTP request, never in payloads. */
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

export const REVERSE_DNS = /^[a-z0-9-]+(?:\.[a-z0-9_-]+)+$/;

export function parseClientFeatures(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((feature) => feature.trim())
    .filter((feature) => REVERSE_DNS.test(feature));
}

/** e.g. `CONTRACTS_ALLOW_DEPRECATED_EXPERIMENT_V1_FIREWALLRULE_DESCRIPTION`. */
export function deprecationOverrideEnv(packageName: string, target: string): string {
  return `CONTRACTS_ALLOW_DEPRECATED_${`${packageName}_${target}`.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/** The `User-Agent`'s first product token. */
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

export function clientNameOf(userAgent: string | undefined): string {
  return parseUserAgent(userAgent)?.name ?? 'unknown';
}

/** The longest package name that prefixes the subject. */
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
 * No header or an unparsable one is accepted (older clients), any minor of a served package
 * too (minors are compatible both ways); only another major of a served family is refused.
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

export interface DeprecatedUse {
  contract: string;
  deprecation: Deprecation;
  overrideEnv: string;
}

/** The subject, the request message, or a top-level request field that is set. */
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

/** Envoy's warn-then-fatal, with the override env var as escape hatch. */
export function isRefused(
  use: DeprecatedUse,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  return use.deprecation.disallowedByDefault === true && env[use.overrideEnv] !== 'true';
}

/** RFC 9745 `Deprecation`, RFC 8594 `Sunset`, and a `Link` to the docs. */
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
