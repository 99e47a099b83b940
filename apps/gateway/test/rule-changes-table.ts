import { TEST_POSTGRES_URL } from '@rollout/testing/kit';
import { DataSource } from 'typeorm';

/**
 * Test support: the changes the inspection-rules-service recorded for one rule, oldest first,
 * read from its schema (no API serves them, and the service runs in another process).
 */
export async function readRuleChanges(schema: string, rule: string): Promise<unknown[]> {
  const db = new DataSource({ type: 'postgres', url: TEST_POSTGRES_URL });
  await db.initialize();
  try {
    return (await db.query(
      `SELECT change, actor, request_id FROM "${schema}".rule_changes WHERE rule_uuid = $1 ORDER BY seq`,
      [rule],
    )) as unknown[];
  } finally {
    await db.destroy();
  }
}
