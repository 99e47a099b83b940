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
  STATE_KEY_PREFIX,
  TRAFFIC_STREAM,
  inspectionEventSubject,
  serviceInfoSubject,
  ASSERTION_IDS_KV,
  DEAD_LETTER_STREAM,
  INSPECTION_DURABLE,
  INSPECTION_RESULTS_STREAM,
  INSPECTION_STREAM,
  TRAFFIC_DURABLE,
} from '@rollout/contracts';
import { NatsNamespace, inboxPrefixOf, kvAllKeys, kvStream } from '@rollout/platform/nats';

/** One NATS user per kind; a traffic producer's credential names the projects it may publish for. */
export type BusRole =
  | { kind: 'gateway' }
  | { kind: 'experiment-service' }
  | { kind: 'evaluator' }
  | { kind: 'enforcement-service' }
  | { kind: 'inspection-rules-service' }
  | { kind: 'policy-adapter'; adapter: string }
  | { kind: 'traffic-producer'; projects: string[] }
  | { kind: 'inspection-agent' }
  /** The provisioning step (Kubernetes Job, launcher): JetStream's whole API, no application subject. */
  | { kind: 'provisioner' }
  /** Operators (the `nats` CLI): everything. Not given to any process of the system. */
  | { kind: 'admin' };

export interface BusUser {
  user: string;
  /** The password itself, or `$NAME` to have nats-server read it from its environment variable NAME (a Kubernetes Secret). */
  password: string;
  role: BusRole;
}

export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  /** Lets a responder answer the requests it received (and only those), with no publish right on inboxes. */
  allow_responses?: boolean;
}

// Stream and consumer names are letters, digits, `_` and `-`; users are NATS tokens we use in inbox prefixes.
const USER = /^[A-Za-z0-9_-]{1,64}$/;
const PROJECT = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Only the provisioning step creates, changes or deletes streams: a user that could would make a
 * stream capture any subject (JetStream stores whatever its subjects select) or republish onto any.
 */
interface JetStreamAccess {
  /** Streams it publishes into or reads: their info (the boot check, lag and retention read it). */
  info?: string[];
  /** Streams read by sequence: how a service follows a stream without a consumer of its own. */
  get?: string[];
  durables?: [string, string][];
  /** Buckets whose entries it puts and deletes (the bucket's writer only). */
  kvWrite?: string[];
}

function jetStreamAccess({ info = [], get = [], durables = [], kvWrite = [] }: JetStreamAccess) {
  return [
    '$JS.API.INFO',
    ...kvWrite.map(kvAllKeys),
    ...info.map((stream) => `$JS.API.STREAM.INFO.${stream}`),
    ...get.flatMap((stream) => [
      `$JS.API.STREAM.MSG.GET.${stream}`,
      `$JS.API.DIRECT.GET.${stream}`,
      `$JS.API.DIRECT.GET.${stream}.>`,
    ]),
    ...durables.flatMap(([stream, durable]) => [
      `$JS.API.CONSUMER.INFO.${stream}.${durable}`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`,
      `$JS.ACK.${stream}.${durable}.>`,
    ]),
  ];
}

/** Writes assertion ids (create-if-absent) and checks the bucket exists; never reads, deletes or purges a key. */
function assertionIds(ns: NatsNamespace): string[] {
  const bucket = ns.bucket(ASSERTION_IDS_KV.bucket);
  return [kvAllKeys(bucket), `$JS.API.STREAM.INFO.${kvStream(bucket)}`];
}

function service(
  ns: NatsNamespace,
  user: string,
  name: Parameters<typeof serviceInfoSubject>[0],
  served: string[],
  publishes: string[],
  jetStream: JetStreamAccess = {},
  /** Subjects it listens to besides its requests (already namespaced): a bucket's writes, say. */
  listens: string[] = [],
): NatsPermissions {
  return {
    publish: {
      allow: [
        ...publishes.map((s) => ns.subject(s)),
        ...jetStreamAccess(jetStream),
        ...assertionIds(ns),
      ],
    },
    subscribe: {
      allow: [
        ...[...served, serviceInfoSubject(name)].map((s) => ns.subject(s)),
        ...listens,
        `${inboxPrefixOf(user)}.>`,
      ],
    },
    allow_responses: true,
  };
}

/**
 * The least each role needs; everything else is denied, JetStream's API included. Replies come on
 * an inbox of each user's own (`_INBOX_<user>`), so no user can read another's replies.
 */
export function busPermissions(
  { user, role }: Pick<BusUser, 'user' | 'role'>,
  namespace?: string,
): NatsPermissions {
  if (!USER.test(user))
    throw new Error(`NATS user "${user}" must be 1 to 64 letters, digits, "_" or "-"`);
  const ns = new NatsNamespace(namespace);
  const inbox = `${inboxPrefixOf(user)}.>`;
  const bucket = ns.bucket(EXPERIMENT_STATE_BUCKET);
  const state = kvStream(bucket);
  const deadLetters = ns.stream(DEAD_LETTER_STREAM.name);
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
    case 'experiment-service': {
      // Its relays append to the history stream and write the state bucket (the only writer:
      // `$KV.<bucket>.>` is its stream's subjects), each resuming from the last message stored.
      const events = ns.stream(EXPERIMENT_EVENTS_STREAM);
      return service(
        ns,
        user,
        'experiment-service',
        Object.values(EXPERIMENT_SUBJECTS),
        [EXPERIMENT_EVENTS_SUBJECTS],
        { info: [events, state], get: [events, state], kvWrite: [bucket] },
      );
    }
    case 'evaluator': {
      // Auto-stop is its one call to another service (stopPreview). It reads TRAFFIC through the
      // shared durable, and by direct get a backtest's window and a report's lag (the oldest unread
      // message); it follows the state bucket with direct gets, never writes it, creates no consumer.
      const traffic = ns.stream(TRAFFIC_STREAM);
      return service(
        ns,
        user,
        'evaluator',
        Object.values(PREVIEW_SUBJECTS),
        [PREVIEW_LOGS_SUBJECTS, 'deadletter.v1.>', EXPERIMENT_SUBJECTS.stopPreview],
        {
          info: [traffic, ns.stream(PREVIEW_LOGS_STREAM), deadLetters, state],
          get: [state, traffic],
          durables: [[traffic, TRAFFIC_DURABLE]],
        },
        [kvAllKeys(bucket)],
      );
    }
    case 'enforcement-service':
      return service(ns, user, 'enforcement-service', Object.values(ENFORCEMENT_SUBJECTS), [
        'adapter.v1.>',
      ]);
    case 'inspection-rules-service':
      return service(
        ns,
        user,
        'inspection-rules-service',
        Object.values(INSPECTION_RULES_SUBJECTS),
        [INSPECTION_RESULTS_SUBJECT, 'deadletter.v1.>'],
        {
          info: [INSPECTION_STREAM, INSPECTION_RESULTS_STREAM]
            .map((stream) => ns.stream(stream))
            .concat(deadLetters),
          durables: [[ns.stream(INSPECTION_STREAM), INSPECTION_DURABLE]],
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
      // Every major of traffic, for these projects only; the inbox is for JetStream's publish acks.
      // The live-policy check reads only its projects' policy keys by direct get (key in the subject, so
      // the server checks it): not the relay's position key, which leaks every project's activity.
      const directGet = (key: string) => `$JS.API.DIRECT.GET.${state}.$KV.${bucket}.${key}`;
      return {
        publish: {
          allow: [
            ...role.projects.map((project) => ns.subject(`traffic.*.${project}.>`)),
            ...role.projects.map((project) => directGet(`${STATE_KEY_PREFIX}policy.${project}.>`)),
          ],
        },
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
    case 'provisioner':
      return { publish: { allow: ['$JS.API.>'] }, subscribe: { allow: [inbox] } };
    case 'admin':
      return { publish: { allow: ['>'] }, subscribe: { allow: ['>'] } };
  }
}
