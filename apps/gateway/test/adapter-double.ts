import { TEST_NATS_URL, eventually, uniqueName } from '@rollout/testing/kit';
import { JSONCodec, Msg, NatsConnection, Subscription, connect } from 'nats';
import { EnforcementSystem, Reply, enforcementSystem, hoursFromNow } from './enforcement-system';

/**
 * Adapter filters (adapter.v1 over NATS) through the gateway. A small adapter written here with
 * the raw `nats` client on the real server (a real process speaking the contract) answers by
 * the lease's project, so one adapter covers every case: cached allows and denials with chosen
 * validity, a slow answer; it records its sessions so reloads and shutdown can be observed.
 */
const codec = JSONCodec<Record<string, unknown>>();
const OK = { code: 0, status: 'OK', message: '', details: [] };
export const TIMEOUT_MS = 300;

interface Received {
  method: string;
  body: Record<string, unknown>;
  /** The call's `Contract-Version` and `User-Agent` headers. */
  contractVersion?: string;
  userAgent?: string;
}

/** An adapter.v1 implementation on the namespace's subjects. */
export class TestAdapter {
  readonly received: Received[] = [];
  /** Lifecycle events in order: `createSession s1 {"v":1}`, `closeSession s1`. */
  readonly sessions: string[] = [];
  /** Slow answers not sent yet. */
  pending = 0;
  private sessionCount = 0;
  /** Sessions open now; `forget` loses them as an adapter restarted without its state would. */
  private readonly open = new Set<string>();
  private readonly held: (() => void)[] = [];
  private subscription?: Subscription;

  constructor(
    private readonly nc: NatsConnection,
    private readonly namespace: string,
    readonly name: string,
  ) {}

  start(): void {
    this.subscription = this.nc.subscribe(`${this.namespace}.adapter.v1.${this.name}.*`, {
      queue: this.name,
      callback: (_e, msg) => this.answer(msg),
    });
  }

  checks(project: string): number {
    return this.received.filter(
      (r) =>
        r.method === 'handleCheck' &&
        (r.body.instance as { context: { projectId: string } }).context.projectId === project,
    ).length;
  }

  forget(): void {
    this.open.clear();
  }

  /** Sends the slow answers that are still held (the service gave up on them long ago). */
  release(): void {
    for (const send of this.held.splice(0)) send();
  }

  private answer(msg: Msg): void {
    const method = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
    const body = codec.decode(msg.data);
    this.received.push({
      method,
      body,
      contractVersion: msg.headers?.get('Contract-Version'),
      userAgent: msg.headers?.get('User-Agent'),
    });
    const reply = (data: unknown): void => {
      msg.respond(codec.encode(data as Record<string, unknown>));
    };
    switch (method) {
      case 'info':
        return reply({
          name: this.name,
          description: 'test adapter',
          templates: ['check', 'quota', 'report'],
          sessionBased: true,
        });
      case 'validate':
        return reply({ status: OK });
      case 'createSession': {
        const sessionId = `s${++this.sessionCount}`;
        this.sessions.push(`createSession ${sessionId} ${JSON.stringify(body.adapterConfig)}`);
        this.open.add(sessionId);
        return reply({ sessionId, status: OK });
      }
      case 'closeSession':
        this.sessions.push(`closeSession ${String(body.sessionId)}`);
        this.open.delete(String(body.sessionId));
        return reply({ status: OK });
      case 'handleCheck': {
        if (!this.open.has(String(body.sessionId))) {
          return reply({
            status: {
              code: 9,
              status: 'FAILED_PRECONDITION',
              message: `Session ${String(body.sessionId)} is unknown.`,
              details: [],
            },
          });
        }
        const project = (body.instance as { context: { projectId: string } }).context.projectId;
        if (project === 'slow') {
          this.pending++;
          this.held.push(() => {
            this.pending--;
            reply({ status: OK, validDuration: 0, validUseCount: 0 });
          });
          return;
        }
        if (project === 'blocked') {
          return reply({
            status: {
              code: 403,
              status: 'PERMISSION_DENIED',
              message: 'Project blocked is not in the CMDB.',
              details: [],
            },
            validDuration: 60_000,
            validUseCount: 1000,
          });
        }
        // `uses`: reusable twice; `brief`: for 300 ms; every other project: for a minute, 1000 times.
        if (project === 'uses')
          return reply({ status: OK, validDuration: 60_000, validUseCount: 2 });
        if (project === 'brief')
          return reply({ status: OK, validDuration: 300, validUseCount: 1000 });
        return reply({ status: OK, validDuration: 60_000, validUseCount: 1000 });
      }
      default:
        return reply({ status: OK, quotas: {} });
    }
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }
}

export const chain = (
  adapter: string,
  params: Record<string, unknown>,
  failurePolicy: 'open' | 'closed',
) => `
enabled_filters: [MaxLeaseDuration, probe]
filters:
  MaxLeaseDuration: { max_lease_duration: 604800 }
  probe:
    adapter: ${adapter}
    params: ${JSON.stringify(params)}
    templates: [check]
    failure_policy: ${failurePolicy}
    timeout_ms: ${TIMEOUT_MS}
`;

/** Always the same shape, under a new id each time: a different lease for the check cache. */
export const LEASE = {
  name: 'probe',
  startDate: hoursFromNow(24),
  endDate: hoursFromNow(26),
  reservations: [{ resourceType: 'physical:host', min: 1, max: 1 }],
};
/** One Blazar lease (by its name), which Blazar may ask about again: the same lease for the check cache. */
const BLAZAR_LEASE = {
  name: 'probe',
  start_date: LEASE.startDate,
  end_date: LEASE.endDate,
  reservations: [{ resource_type: 'physical:host', min: 1, max: 1 }],
};

export interface ProbeSystem extends EnforcementSystem {
  nc: NatsConnection;
  /** The adapter the probe filter calls, its first session open once the system has started. */
  adapter: TestAdapter;
  /** Creates LEASE in `project` through the API, under a new id (`id`). */
  create(project: string): Promise<Reply & { id: string }>;
  /** Asks check-create about BLAZAR_LEASE in `project`, as Blazar does. */
  ask(project: string): Promise<Reply>;
}

/**
 * A system whose chain runs the probe filter on a TestAdapter started here, its first session
 * open, with `env` beside the settings. The namespace is only known once the service runs, so
 * the chain points at the adapter through a reload.
 */
export function probeSystem(env: Record<string, string> = {}): ProbeSystem {
  const system = enforcementSystem<ProbeSystem>(
    chain('nobody-yet', { v: 0 }, 'closed'),
    { ENFORCEMENT_CONFIG_WATCH_INTERVAL_MS: '100', ...env },
    {
      async given(system) {
        system.nc = await connect({ servers: TEST_NATS_URL });
      },
      async started(system) {
        system.adapter = new TestAdapter(system.nc, system.namespace, uniqueName('probe-'));
        system.adapter.start();
        // The subscription reaches the server before the reload does: a handshake that found no
        // adapter is only tried again at the next request, and none comes before this wait.
        await system.nc.flush();
        system.reload(chain(system.adapter.name, { v: 1 }, 'closed'));
        await eventually(() => (system.adapter.sessions.length === 1 ? true : undefined), {
          timeoutMs: 15_000,
          what: 'the first session',
        });
      },
      async closed(system) {
        system.adapter?.release();
        await system.nc?.close();
      },
    },
  );
  system.create = (project) => system.createLease(project, LEASE);
  system.ask = (project) =>
    system.blazar('check-create', {
      context: { user_id: 'alice', project_id: project },
      lease: BLAZAR_LEASE,
    });
  return system;
}
