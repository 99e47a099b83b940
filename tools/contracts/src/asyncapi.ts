import { CONTRACT_HEADERS, type ContractPackageDefinition } from '@rollout/contracts';
import type { JsonSchema } from './model';

export interface AsyncApiInput {
  definition: ContractPackageDefinition;
  /** The package's JSON Schemas (with descriptions and deprecation marks). */
  definitions: Record<string, JsonSchema>;
}

const STATUS_SCHEMA = 'rpc.Status';

function rebase(value: unknown, prefix: string): unknown {
  if (Array.isArray(value)) return value.map((item) => rebase(item, prefix));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof child === 'string'
        ? child.replace('#/definitions/', `#/components/schemas/${prefix}.`)
        : rebase(child, prefix);
  }
  return out;
}

/** Component keys allow `[A-Za-z0-9._-]` only: `system.v1.{service}.info` → `system.v1.service.info`. */
function componentKey(subject: string): string {
  return subject.replace(/[^A-Za-z0-9._-]/g, '');
}

function parametersOf(subject: string, description: string): Record<string, unknown> | undefined {
  const names = [...subject.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1]);
  if (!names.length) return undefined;
  return Object.fromEntries(
    names.map((name) => [
      name,
      {
        description: `${description}: one NATS token.`,
        schema: { type: 'string', pattern: '^[^.*>\\s]+$' },
      },
    ]),
  );
}

/**
 * AsyncAPI 2.6. Request/reply subjects carry the NestJS NATS transport's packets (`{pattern, data,
 * id}` in, `{id, response | err}` out) unless `envelope: 'plain'`; JetStream subjects carry the message.
 */
export function buildAsyncApi(
  packages: AsyncApiInput[],
  status: Record<string, JsonSchema>,
  version: string,
): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  const channels: Record<string, unknown> = {};
  const packageTags: { name: string; description: string }[] = [];
  for (const [name, schema] of Object.entries(status))
    schemas[`rpc.${name}`] = rebase(schema, 'rpc');

  for (const { definition, definitions } of [...packages].sort((a, b) =>
    a.definition.name.localeCompare(b.definition.name),
  )) {
    const pkg = definition.name;
    for (const [name, schema] of Object.entries(definitions))
      schemas[`${pkg}.${name}`] = rebase(schema, pkg);
    const tags = [
      { name: pkg, description: `${definition.stability} package, version ${definition.version}` },
    ];
    packageTags.push(tags[0]);
    const deprecated = new Map((definition.deprecations ?? []).map((d) => [d.target, d]));
    const ref = (type: string) => ({ $ref: `#/components/schemas/${pkg}.${type}` });

    for (const channel of definition.requestReply ?? []) {
      const id = componentKey(channel.subject);
      const served = channel.service
        ? `served by ${channel.service} (queue group \`${channel.service}\`)`
        : channel.envelope === 'plain'
          ? 'served by every process named by the subject (queue group = that name), plain JSON bodies'
          : 'served by every service named by the subject (queue group = service name)';
      if (channel.envelope === 'plain') {
        // The message itself, both ways (the reply carries its own status).
        messages[`${id}.request`] = {
          messageId: `${id}.request`,
          name: channel.request,
          title: `${pkg} ${channel.request}`,
          contentType: 'application/json',
          traits: [{ $ref: '#/components/messageTraits/clientIdentity' }],
          payload: ref(channel.request),
        };
        messages[`${id}.reply`] = {
          messageId: `${id}.reply`,
          name: channel.reply,
          title: `${pkg} ${channel.reply}`,
          contentType: 'application/json',
          payload: ref(channel.reply),
        };
      } else {
        messages[`${id}.request`] = {
          messageId: `${id}.request`,
          name: channel.request,
          title: `${pkg} ${channel.request}`,
          contentType: 'application/json',
          traits: [{ $ref: '#/components/messageTraits/clientIdentity' }],
          payload: {
            type: 'object',
            description: 'NestJS NATS transport request packet.',
            required: ['pattern', 'data', 'id'],
            properties: {
              pattern: { type: 'string', description: 'The subject (without any test namespace).' },
              id: { type: 'string', description: 'Correlates the reply.' },
              data: ref(channel.request),
            },
          },
        };
        messages[`${id}.reply`] = {
          messageId: `${id}.reply`,
          name: channel.reply,
          title: `${pkg} ${channel.reply}`,
          contentType: 'application/json',
          payload: {
            description: 'NestJS NATS transport reply packet: the reply, or a google.rpc.Status.',
            oneOf: [
              {
                type: 'object',
                required: ['id', 'response'],
                properties: {
                  id: { type: 'string' },
                  response: ref(channel.reply),
                  isDisposed: { type: 'boolean' },
                },
              },
              {
                type: 'object',
                required: ['id', 'err'],
                properties: {
                  id: { type: 'string' },
                  err: { $ref: `#/components/schemas/${STATUS_SCHEMA}` },
                  isDisposed: { type: 'boolean' },
                },
              },
            ],
          },
        };
      }
      const deprecation = deprecated.get(channel.subject);
      channels[channel.subject] = {
        description: `Request/reply, ${served}.`,
        ...(parametersOf(channel.subject, 'Subject parameter')
          ? { parameters: parametersOf(channel.subject, 'Subject parameter') }
          : {}),
        publish: {
          operationId: channel.subject,
          summary: `${channel.request} → ${channel.reply}`,
          tags,
          ...(channel.service
            ? { bindings: { nats: { queue: channel.service, bindingVersion: '0.1.0' } } }
            : {}),
          ...(deprecation
            ? {
                'x-deprecated': {
                  since: deprecation.since,
                  replacement: deprecation.replacement,
                  sunset: deprecation.sunset,
                },
              }
            : {}),
          message: { $ref: `#/components/messages/${id}.request` },
          'x-reply': { message: { $ref: `#/components/messages/${id}.reply` } },
        },
      };
    }

    for (const channel of definition.streams ?? []) {
      const id = componentKey(channel.subject);
      messages[id] = {
        messageId: id,
        name: channel.message,
        title: `${pkg} ${channel.message}`,
        contentType: 'application/json',
        traits: [{ $ref: '#/components/messageTraits/jetStream' }],
        payload: ref(channel.message),
      };
      const operation = {
        operationId: channel.subject,
        summary:
          channel.direction === 'in'
            ? `Clients publish; ${channel.service} consumes.`
            : `${channel.service} publishes; clients consume.`,
        tags,
        'x-jetstream': { stream: channel.stream },
        message: { $ref: `#/components/messages/${id}` },
      };
      channels[channel.subject] = {
        description: `JetStream stream \`${channel.stream}\`.`,
        ...(parametersOf(channel.subject, 'Subject parameter')
          ? { parameters: parametersOf(channel.subject, 'Subject parameter') }
          : {}),
        // AsyncAPI 2.x is written from the system's side: `publish` is what it receives.
        [channel.direction === 'in' ? 'publish' : 'subscribe']: operation,
      };
    }
  }

  const headers = (extra: Record<string, unknown>) => ({
    type: 'object',
    properties: {
      [CONTRACT_HEADERS.contractVersion]: {
        type: 'string',
        description:
          'The contract package and version the client speaks, e.g. `experiment.v1/1.2.0`.',
      },
      [CONTRACT_HEADERS.userAgent]: { type: 'string', description: 'The client: `name/version`.' },
      [CONTRACT_HEADERS.clientFeatures]: {
        type: 'string',
        description:
          'Comma-separated reverse-DNS names of optional behaviours the client supports.',
      },
      ...extra,
    },
  });
  return {
    asyncapi: '2.6.0',
    id: 'urn:policy-rollout:nats',
    info: {
      title: 'Policy rollout NATS API',
      version,
      description:
        'Every NATS subject of the policy rollout services, generated from the contract packages ' +
        '(`npm run contracts`). The major version is part of every subject; version metadata travels in headers.',
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
      contact: {
        name: 'Policy rollout maintainers',
        url: 'https://github.com/policy-rollout/policy-rollout',
      },
    },
    tags: packageTags,
    defaultContentType: 'application/json',
    servers: {
      local: {
        url: 'nats://127.0.0.1:4222',
        protocol: 'nats',
        description: 'NATS with JetStream (nats-server 2.9+).',
      },
    },
    channels: Object.fromEntries(Object.entries(channels).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      messages: Object.fromEntries(Object.entries(messages).sort(([a], [b]) => a.localeCompare(b))),
      messageTraits: {
        clientIdentity: { headers: headers({}) },
        jetStream: {
          headers: headers({
            'Nats-Msg-Id': {
              type: 'string',
              description:
                'The message id: a republish within the duplicate window is stored once.',
            },
          }),
        },
      },
    },
  };
}
