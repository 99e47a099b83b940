import {
  INSPECTION_RESULTS_SUBJECT,
  InspectionEvent,
  InspectionPhase,
  InspectionResult,
  inspectionEventSubject,
} from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { TEST_NATS_URL, eventually } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import {
  INSPECTION_DURABLE,
  INSPECTION_RESULTS_STREAM,
  INSPECTION_STREAM,
} from '../src/events/inspection-events';
import { TestService, startTestService } from './in-process-service';

/** The actor rule changes made straight on the service are recorded under. */
export const TEST_ACTOR = { actor: 'test' };

// The seed's two examples, as written there (with its `{plugin_data[bmc_address}` typo fixed), as built-in rules.
export const SEED_BUILT_INS = `
- description: Initialize freshly discovered nodes
  sensitive: true
  conditions:
    - op: is-true
      args: ["{node.auto_discovered}"]
    - op: "!is-empty"
      args: ["{plugin_data[bmc_address]}"]
  actions:
    - op: set-attribute
      args: ["/driver", "ipmi"]
    - op: set-attribute
      args: ["/driver_info/ipmi_address", "{plugin_data[bmc_address]}"]
    - op: set-attribute
      args: ["/driver_info/ipmi_username", "admin"]
    - op: set-attribute
      args: ["/driver_info/ipmi_password", "pa$$w0rd"]

- description: Initialize Dell nodes using IPv6
  sensitive: true
  conditions:
    - op: is-true
      args: ["{node.auto_discovered}"]
    - op: contains
      args: ["{inventory[system_vendor][manufacturer]}", "(?i)dell"]
  actions:
    - op: set-attribute
      args: ["/driver", "idrac"]
    - op: set-attribute
      args: ["/driver_info/redfish_address", "https://{inventory[bmc_v6address]}"]
    - op: set-attribute
      args: ["/driver_info/redfish_username", "root"]
    - op: set-attribute
      args: ["/driver_info/redfish_password", "calvin"]
`;

export const dellEvent = (id: string): InspectionEvent => ({
  id,
  node: { uuid: 'node-dell', auto_discovered: true, driver_info: {} },
  ports: [{ uuid: 'port-1', address: '52:54:00:00:00:01' }],
  port_groups: [],
  inventory: { system_vendor: { manufacturer: 'Dell Inc.' }, bmc_v6address: '2001:db8::42' },
  plugin_data: {},
  scope: null,
});

export interface EventStream {
  apps: TestService;
  nc: NatsConnection;
  ns: NatsNamespace;
  /** Publishes an event (or raw bytes) on a phase's subject; answers its stream sequence. */
  publish(phase: InspectionPhase, event: unknown, msgID?: string): Promise<number>;
  /** Every result published so far, in order. */
  results(): Promise<InspectionResult[]>;
  resultOf(eventId: string): Promise<InspectionResult>;
  /** Waits until the consumer has settled every message up to `seq`. */
  settled(seq: number): Promise<true>;
  close(): Promise<void>;
}

/**
 * The service started with `builtIns` (the seed's rules unless given) on `schema`, and a client of
 * its event and result streams.
 */
export async function startEventStream(
  builtIns = SEED_BUILT_INS,
  schema?: string,
): Promise<EventStream> {
  const apps = await startTestService(builtIns, schema);
  const ns = new NatsNamespace(apps.namespace);
  const nc = await connect({ servers: TEST_NATS_URL });
  const publish = async (phase: InspectionPhase, event: unknown, msgID?: string) =>
    (
      await nc
        .jetstream()
        .publish(
          ns.subject(inspectionEventSubject(phase)),
          typeof event === 'string' || event instanceof Uint8Array ? event : JSON.stringify(event),
          { msgID },
        )
    ).seq;
  async function results(): Promise<InspectionResult[]> {
    const jsm = await nc.jetstreamManager();
    const info = await jsm.streams.info(ns.stream(INSPECTION_RESULTS_STREAM));
    const found: InspectionResult[] = [];
    for (
      let seq = info.state.first_seq;
      seq <= info.state.last_seq && info.state.messages > 0;
      seq++
    ) {
      const stored = await jsm.streams.getMessage(ns.stream(INSPECTION_RESULTS_STREAM), { seq });
      expect(stored.subject).toBe(ns.subject(INSPECTION_RESULTS_SUBJECT));
      found.push(stored.json<InspectionResult>());
    }
    return found;
  }
  const resultOf = (eventId: string) =>
    eventually(async () => (await results()).find((r) => r.eventId === eventId), {
      what: `result of ${eventId}`,
    });
  const settled = (seq: number) =>
    eventually(
      async () => {
        const info = await (
          await nc.jetstreamManager()
        ).consumers.info(ns.stream(INSPECTION_STREAM), INSPECTION_DURABLE);
        return info.ack_floor.stream_seq >= seq ? true : undefined;
      },
      { what: `event ${seq} settled` },
    );
  return {
    apps,
    nc,
    ns,
    publish,
    results,
    resultOf,
    settled,
    async close() {
      await nc.close();
      await apps.close();
    },
  };
}
