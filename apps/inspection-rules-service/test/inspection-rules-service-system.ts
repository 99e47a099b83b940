import { removeTestResources, uniqueName } from '@rollout/testing/kit';
import { EventStream, SEED_BUILT_INS, startEventStream } from './inspection-event-stream';

/** What a spec file's inspection-rules-service runs on: filled in by the hooks `inspectionRulesServiceSystem` registers. */
export type InspectionRulesServiceSystem = EventStream;

/**
 * The one system of a spec file: `given` prepares the service's Postgres schema (an older
 * version's tables, to check a migration), then the service starts on it with `builtIns` (the
 * seed's rules unless given), with a client of its event and result streams; all of it removed
 * after the file (or the `describe` it is called in).
 */
export function inspectionRulesServiceSystem(
  builtIns = SEED_BUILT_INS,
  given: (schema: string) => Promise<void> = async () => undefined,
): InspectionRulesServiceSystem {
  const schema = uniqueName('it_');
  const system = {} as InspectionRulesServiceSystem;
  beforeAll(async () => {
    await given(schema);
    Object.assign(system, await startEventStream(builtIns, schema));
  }, 60_000);
  afterAll(async () => {
    if (system.close) await system.close();
    else await removeTestResources({ schema });
  }, 30_000);
  return system;
}
