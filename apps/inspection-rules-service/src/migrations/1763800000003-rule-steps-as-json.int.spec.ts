import { openDataSource } from '@rollout/platform/postgres';
import { TEST_POSTGRES_URL } from '@rollout/testing/kit';
import { TEST_ACTOR } from '../../test/inspection-event-stream';
import { inspectionRulesServiceSystem } from '../../test/inspection-rules-service-system';
import { RuleCommands } from '../rules/rule-commands.application';
import { RuleQueries } from '../rules/rule-queries.application';
import { CreateInspectionRules1763800000000 } from './1763800000000-create-inspection-rules';
import { InspectionResultsAsText1763800000001 } from './1763800000001-inspection-results-as-text';
import { RuleChanges1763800000002 } from './1763800000002-rule-changes';

const OLD_RULE = '0d0d0d0d-0000-4000-8000-000000000001';

describe('given rules stored by the previous version (jsonb), when the service starts on them, then they still read and run, and new rules keep their key order', () => {
  const system = inspectionRulesServiceSystem('[]', async (schema) => {
    // The schema as the previous version left it, with one rule in it.
    const previous = await openDataSource({
      url: TEST_POSTGRES_URL,
      schema,
      poolSize: 2,
      applicationName: 'inspection-rules-migration-test',
      migrations: [
        CreateInspectionRules1763800000000,
        InspectionResultsAsText1763800000001,
        RuleChanges1763800000002,
      ],
    });
    await previous.query(
      `INSERT INTO inspection_rules (uuid, priority, conditions, actions) VALUES ($1, 1, $2, $3)`,
      [
        OLD_RULE,
        JSON.stringify([{ op: 'is-true', args: { value: true } }]),
        JSON.stringify([
          {
            op: 'set-plugin-data',
            args: { value: 'old-{item}', path: 'old' },
            loop: [{ zz: 1, a: 2 }],
          },
        ]),
      ],
    );
    await previous.destroy();
  });

  it('reads and runs the old rule (its keys in the order jsonb kept), and keeps the order of a new one', async () => {
    const queries = system.apps.app.get(RuleQueries);
    const old = await queries.get(OLD_RULE);
    // jsonb had already sorted the keys (shorter first): that order cannot come back.
    expect(Object.keys(old.actions![0].args as object)).toEqual(['path', 'value']);
    await system.apps.app.get(RuleCommands).create(
      {
        priority: 0,
        actions: [
          {
            op: 'set-plugin-data',
            args: { value: 'new-{item}', path: 'new' },
            loop: [{ zz: 1, a: 2 }],
          },
        ],
      },
      TEST_ACTOR,
    );
    const result = await queries.run('main', { node: { uuid: 'n1' } });
    expect(result.failure).toBeNull();
    expect(result.pluginData).toEqual({
      old: "old-{'a': 2, 'zz': 1}",
      new: "new-{'zz': 1, 'a': 2}",
    });
  });
});
