import {
  ENFORCEMENT_SUBJECTS,
  EXPERIMENT_EVENTS_STREAM,
  EXPERIMENT_EVENTS_SUBJECTS,
  EXPERIMENT_STATE_BUCKET,
  EXPERIMENT_SUBJECTS,
  INSPECTION_PHASES,
  INSPECTION_RESULTS_SUBJECT,
  INSPECTION_RULES_SUBJECTS,
  PREVIEW_LOGS_STREAM,
  PREVIEW_LOGS_SUBJECTS,
  PREVIEW_SUBJECTS,
  TRAFFIC_STREAM,
  inspectionEventSubject,
  serviceInfoSubject,
} from '@rollout/contracts';
import { ASSERTION_IDS_KV } from './assertion-ids';
import { DEAD_LETTER_STREAM } from './jetstream-setup';
import { NatsNamespace } from './namespace';
import { inboxPrefixOf } from './nats-options';

/**
 * Who may connect to the bus, one kind per NATS user. Services get one user each; every
 * traffic producer and inspection agent gets a credential of its kind (a traffic producer's
 * names the projects it may publish for).
 */
export type BusRole =
  | { kind: 'gateway' }
  | { kind: 'experiment-service' }
  | { kind: 'evaluator' }
  | { kind: 'enforcement-service' }
  | { kind: 'inspection-rules-service' }
  | { kind: 'policy-adapter'; adapter: string }
  | { kind: 'traffic-producer'; projects: string[] }
  | { kind: 'inspection-agent' }
  /** Operators (the `nats` CLI): everything. Not given to any process of the system. */
  | { kind: 'admin' };

export interface BusUser {
  user: string;
  /** The password itself, or `$NAME` to have nats-server read it from its environment variable NAME (a Kubernetes Secret). */
  password: string;
  role: BusRole;
}

/** A NATS user's permissions, in nats-server's configuration shape. */
export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  /** Lets a responder answer the requests it received (and only those), with no publish right on inboxes. */
  allow_responses?: boolean;
}

// Stream and consumer names are letters, digits, `_` and `-`; users are NATS tokens we use in inbox prefixes.
const USER = /^[A-Za-z0-9_-]{1,64}$/;
const PROJECT = /^[A-Za-z0-9_-]{1,128}$/;

const KV_STREAM = (bucket: string) => `KV_${bucket}`;

/** Everything a service may do to a stream it owns: create, update, read and delete it, and run consumers on it. */
function ownedStream(stream: string): string[] {
  return [
    `$JS.API.STREAM.*.${stream}`,
    `$JS.API.STREAM.MSG.*.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.CONSUMER.*.${stream}`,
    `$JS.API.CONSUMER.*.${stream}.>`,
    `$JS.API.CONSUMER.*.*.${stream}.>`,
    `$JS.ACK.${stream}.>`,
    `$JS.FC.${stream}.>`,
  ];
}

/** Reading a stream another service owns: its info, its messages, and consumers of one's own on it; never changing or deleting it. */
function readStream(stream: string): string[] {
  return [
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.CONSUMER.CREATE.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.>`,
    `$JS.API.CONSUMER.DELETE.${stream}.>`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
    `$JS.ACK.${stream}.>`,
    `$JS.FC.${stream}.>`,
  ];
}

/**
 * What a service that verifies actor assertions needs of the ASSERTION_IDS bucket: to write a
 * key (create-if-absent, a publish with an expectation), never to read, delete or purge one.
 * Declaring the bucket at boot (info, create, update of its stream) is the one JetStream right
 * beyond that, until a provisioning step declares it.
 */
function assertionIds(ns: NatsNamespace): string[] {
  const bucket = ns.bucket(ASSERTION_IDS_KV.bucket);
  return [
    `$KV.${bucket}.>`,
    ...['INFO', 'CREATE', 'UPDATE'].map((api) => `$JS.API.STREAM.${api}.${KV_STREAM(bucket)}`),
  ];
}

function service(
  ns: NatsNamespace,
  user: string,
  name: Parameters<typeof serviceInfoSubject>[0],
  served: string[],
  publishes: string[],
  streams: { owned?: string[]; read?: string[] },
): NatsPermissions {
  return {
    publish: {
      allow: [
        ...publishes.map((s) => ns.subject(s)),
        '$JS.API.INFO',
        ...(streams.owned ?? []).flatMap((stream) => ownedStream(ns.stream(stream))),
        ...(streams.read ?? []).flatMap((stream) => readStream(ns.stream(stream))),
        ...assertionIds(ns),
      ],
    },
    subscribe: {
      allow: [
        ...[...served, serviceInfoSubject(name)].map((s) => ns.subject(s)),
        `${inboxPrefixOf(user)}.>`,
      ],
    },
    allow_responses: true,
  };
}

/**
 * The permissions of one user: the least each role needs. Everything not allowed is denied,
 * JetStream's API included (a producer cannot create, purge or delete a stream or a consumer,
 * nor read one). Replies reach each user on an inbox of its own (`_INBOX_<user>`, see
 * `inboxPrefixOf`), so no user can read another's replies.
 */
export function busPermissions(
  { user, role }: Pick<BusUser, 'user' | 'role'>,
  namespace?: string,
): NatsPermissions {
  if (!USER.test(user))
    throw new Error(`NATS user "${user}" must be 1 to 64 letters, digits, "_" or "-"`);
  const ns = new NatsNamespace(namespace);
  const inbox = `${inboxPrefixOf(user)}.>`;
  const state = KV_STREAM(ns.bucket(EXPERIMENT_STATE_BUCKET));
  switch (role.kind) {
    case 'gateway':
      return {
        publish: {
          allow: [
            ...Object.values(EXPERIMENT_SUBJECTS),
            ...Object.values(PREVIEW_SUBJECTS),
            ...Object.values(ENFORCEMENT_SUBJECTS),
            ...Object.values(INSPECTION_RULES_SUBJECTS),
            'system.v1.*.info',
          ].map((s) => ns.subject(s)),
        },
        subscribe: { allow: [inbox] },
      };
    case 'experiment-service':
      // Its relays write the history stream and the state bucket (whose stream is KV_<bucket>).
      return withExtra(
        service(
          ns,
          user,
          'experiment-service',
          Object.values(EXPERIMENT_SUBJECTS),
          [EXPERIMENT_EVENTS_SUBJECTS],
          { owned: [EXPERIMENT_EVENTS_STREAM] },
        ),
        [`$KV.${ns.bucket(EXPERIMENT_STATE_BUCKET)}.>`, ...ownedStream(state)],
      );
    case 'evaluator':
      // Auto-stop is its one call to another service (stopPreview, with its system key).
      return withExtra(
        service(
          ns,
          user,
          'evaluator',
          Object.values(PREVIEW_SUBJECTS),
          [PREVIEW_LOGS_SUBJECTS, 'deadletter.v1.>'],
          { owned: [TRAFFIC_STREAM, PREVIEW_LOGS_STREAM, DEAD_LETTER_STREAM.name] },
        ),
        [...readStream(state), ns.subject(EXPERIMENT_SUBJECTS.stopPreview)],
      );
    case 'enforcement-service':
      return service(
        ns,
        user,
        'enforcement-service',
        Object.values(ENFORCEMENT_SUBJECTS),
        ['adapter.v1.>'],
        {},
      );
    case 'inspection-rules-service':
      return service(
        ns,
        user,
        'inspection-rules-service',
        Object.values(INSPECTION_RULES_SUBJECTS),
        [INSPECTION_RESULTS_SUBJECT, 'deadletter.v1.>'],
        {
          owned: ['INSPECTION', 'INSPECTION_RESULTS', DEAD_LETTER_STREAM.name],
        },
      );
    case 'policy-adapter':
      if (!USER.test(role.adapter))
        throw new Error(`adapter name "${role.adapter}" must be letters, digits, "_" or "-"`);
      return {
        publish: { allow: [] },
        subscribe: { allow: [ns.subject(`adapter.v1.${role.adapter}.>`), inbox] },
        allow_responses: true,
      };
    case 'traffic-producer': {
      const bad = role.projects.find((project) => !PROJECT.test(project));
      if (bad !== undefined || role.projects.length === 0)
        throw new Error(
          `traffic producer "${user}" needs projects of letters, digits, "_" or "-" (got "${bad ?? ''}")`,
        );
      // Every major of traffic (`traffic.v1`, `traffic.v2alpha`…), for these projects only; the inbox is for JetStream's publish acks.
      return {
        publish: { allow: role.projects.map((project) => ns.subject(`traffic.*.${project}.>`)) },
        subscribe: { allow: [inbox] },
      };
    }
    case 'inspection-agent':
      // The three event subjects, not all of inspection.v1: the rules API and the results live there too.
      return {
        publish: {
          allow: INSPECTION_PHASES.map((phase) => ns.subject(inspectionEventSubject(phase))),
        },
        subscribe: { allow: [inbox] },
      };
    case 'admin':
      return { publish: { allow: ['>'] }, subscribe: { allow: ['>'] } };
  }
}

function withExtra(permissions: NatsPermissions, publish: string[]): NatsPermissions {
  return { ...permissions, publish: { allow: [...permissions.publish.allow, ...publish] } };
}

/**
 * nats-server's `authorization` block for these users (JSON-like, which nats-server's config
 * format accepts); a `$NAME` password stays a bare variable reference, read by nats-server
 * from its environment.
 */
export function natsAuthorizationConfig(users: BusUser[], namespace?: string): string {
  const entries = users.map((entry) => {
    const password = entry.password.startsWith('$')
      ? entry.password
      : JSON.stringify(entry.password);
    if (!/^\$[A-Z_][A-Z0-9_]*$/.test(password) && password.startsWith('$'))
      throw new Error(`password reference ${password} must be $UPPER_CASE_NAME`);
    return `    { user: ${JSON.stringify(entry.user)}, password: ${password}, permissions: ${JSON.stringify(busPermissions(entry, namespace))} }`;
  });
  return `authorization {\n  users: [\n${entries.join(',\n')}\n  ]\n}\n`;
}
