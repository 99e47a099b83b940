import { REVERSE_DNS, type ContractPackageDefinition, type Deprecation } from '@rollout/contracts';
import { canonicalDefinitions, contentHash } from './canonical';
import type { JsonSchema, LockedChannel, LockedPackage, Role, Violation } from './model';
import { compareSemVer, parsePackageName, parseSemVer } from './semver';

export const ROLE_LISTS = [
  ['requests', 'request'],
  ['replies', 'reply'],
  ['events', 'event'],
  ['resources', 'resource'],
] as const;

/** A type listed under two roles is checked both ways. */
export function messagesOf(definition: ContractPackageDefinition): Record<string, Role> {
  const messages: Record<string, Role> = {};
  for (const [list, role] of ROLE_LISTS) {
    for (const name of definition[list] ?? []) {
      messages[name] = messages[name] && messages[name] !== role ? 'resource' : role;
    }
  }
  for (const channel of definition.requestReply ?? []) {
    messages[channel.request] ??= 'request';
    messages[channel.reply] ??= 'reply';
  }
  for (const channel of definition.streams ?? []) messages[channel.message] ??= 'event';
  return messages;
}

export function channelsOf(definition: ContractPackageDefinition): Record<string, LockedChannel> {
  const channels: Record<string, LockedChannel> = {};
  for (const channel of definition.requestReply ?? []) {
    channels[channel.subject] = {
      kind: 'request-reply',
      messages: [channel.request, channel.reply],
    };
  }
  for (const channel of definition.streams ?? []) {
    channels[channel.subject] = { kind: 'stream', messages: [channel.message] };
  }
  return channels;
}

function fieldSchema(
  definitions: Record<string, JsonSchema>,
  target: string,
): JsonSchema | undefined {
  const [type, field] = target.split('.', 2);
  let schema = definitions[type];
  for (let hops = 0; schema && typeof schema.$ref === 'string' && hops < 10; hops += 1) {
    schema = definitions[(schema.$ref as string).replace(/^#\/definitions\//, '')];
  }
  return (schema?.properties as Record<string, JsonSchema> | undefined)?.[field];
}

/** As Envoy marks them in its protos: `deprecated: true` plus the deprecating version and the replacement. */
export function annotateDeprecations(
  definitions: Record<string, JsonSchema>,
  deprecations: readonly Deprecation[],
): Record<string, JsonSchema> {
  const annotated = structuredClone(definitions);
  for (const deprecation of deprecations) {
    const target = deprecation.target.includes('.')
      ? fieldSchema(annotated, deprecation.target)
      : annotated[deprecation.target];
    if (!target) continue;
    Object.assign(target, {
      deprecated: true,
      'x-deprecated-since': deprecation.since,
      'x-replacement': deprecation.replacement,
      ...(deprecation.disallowedByDefault ? { 'x-disallowed-by-default': true } : {}),
      ...(deprecation.sunset ? { 'x-sunset': deprecation.sunset } : {}),
    });
  }
  return annotated;
}

export function lockPackage(
  definition: ContractPackageDefinition,
  definitions: Record<string, JsonSchema>,
  references: string[],
): LockedPackage {
  const content = {
    messages: messagesOf(definition),
    channels: channelsOf(definition),
    reserved: Object.fromEntries(
      Object.entries(definition.reserved ?? {}).map(([type, fields]) => [type, [...fields].sort()]),
    ),
    deprecations: [...(definition.deprecations ?? [])]
      .map((d) => ({ ...d }))
      .sort((a, b) => a.target.localeCompare(b.target)),
    features: [...(definition.features ?? [])].sort(),
    definitions: canonicalDefinitions(
      annotateDeprecations(definitions, definition.deprecations ?? []),
    ),
  };
  return {
    version: definition.version,
    stability: definition.stability,
    hash: contentHash(content),
    references,
    ...content,
  };
}

export function checkPackage(
  dirName: string,
  definition: ContractPackageDefinition,
  libStability: string | undefined,
  definitions: Record<string, JsonSchema>,
): Violation[] {
  const out: Violation[] = [];
  const name = definition.name;
  const add = (rule: Violation['rule'], message: string, path?: string) =>
    out.push({ rule, subject: dirName, path, message });
  if (name !== dirName)
    add(
      'PACKAGE_NAME_MISMATCH',
      `package.ts names it "${name}"; its directory makes it "${dirName}"`,
    );
  const parsedName = parsePackageName(dirName);
  const version = parseSemVer(definition.version);
  if (!version)
    add('INVALID_VERSION', `"${definition.version}" is not a semantic version (major.minor.patch)`);
  else if (parsedName && version.major !== parsedName.major) {
    add(
      'INVALID_VERSION',
      `version ${definition.version} does not have the major of the package name (v${parsedName.major})`,
    );
  }
  if (parsedName && (definition.stability === 'alpha') !== parsedName.alpha) {
    add(
      'STABILITY_MISMATCH',
      `stability "${definition.stability}" but the name ${parsedName.alpha ? 'is' : 'is not'} an alpha/beta major`,
    );
  }
  if (libStability && libStability !== definition.stability) {
    add(
      'STABILITY_MISMATCH',
      `a ${definition.stability} package in a lib tagged stability:${libStability} (alpha packages live in their own lib)`,
    );
  }
  for (const feature of definition.features ?? []) {
    if (!REVERSE_DNS.test(feature))
      add('INVALID_FEATURE', `feature "${feature}" is not a reverse-DNS name`);
  }
  for (const [type, fields] of Object.entries(definition.reserved ?? {})) {
    for (const field of fields) {
      if (fieldSchema(definitions, `${type}.${field}`)) {
        add(
          'RESERVED_FIELD_REUSED',
          'a reserved field name must never be used again',
          `${type}.${field}`,
        );
      }
    }
  }
  const channels = channelsOf(definition);
  const exists = (target: string) =>
    target in channels ||
    (target.includes('.') ? !!fieldSchema(definitions, target) : target in definitions);
  const targets = new Set<string>();
  for (const deprecation of definition.deprecations ?? []) {
    targets.add(deprecation.target);
    const since = parseSemVer(deprecation.since);
    const problems = [
      [
        !exists(deprecation.target),
        `target ${deprecation.target} is not a field, message or subject of the package`,
      ],
      [!deprecation.replacement, 'it names no replacement'],
      [
        !!deprecation.replacement && !exists(deprecation.replacement),
        `replacement ${deprecation.replacement} does not exist`,
      ],
      [deprecation.replacement === deprecation.target, 'it is its own replacement'],
      [!since, `since "${deprecation.since}" is not a version`],
      [
        !!since && !!version && compareSemVer(since, version) > 0,
        `since ${deprecation.since} is after the package version ${definition.version}`,
      ],
      [
        !!since && !!version && since.major !== version.major,
        `since ${deprecation.since} is not of this major`,
      ],
      [
        !!deprecation.sunset && Number.isNaN(Date.parse(deprecation.sunset)),
        `sunset "${deprecation.sunset}" is not a date`,
      ],
    ]
      .filter(([failed]) => failed)
      .map(([, problem]) => problem as string);
    for (const problem of problems) add('INVALID_DEPRECATION', problem, deprecation.target);
  }
  // A @deprecated JSDoc tag on a field needs its Envoy-style metadata in package.ts.
  for (const [type, schema] of Object.entries(definitions)) {
    if (schema.deprecated === true && !targets.has(type)) {
      add(
        'UNDECLARED_DEPRECATION',
        'deprecated in the TypeScript but not in package.ts deprecations (since, replacement)',
        type,
      );
    }
    for (const [field, property] of Object.entries(
      (schema.properties ?? {}) as Record<string, JsonSchema>,
    )) {
      if (property.deprecated === true && !targets.has(`${type}.${field}`)) {
        add(
          'UNDECLARED_DEPRECATION',
          'deprecated in the TypeScript but not in package.ts deprecations (since, replacement)',
          `${type}.${field}`,
        );
      }
    }
  }
  return out;
}
