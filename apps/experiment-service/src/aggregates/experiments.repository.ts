import { Injectable } from '@nestjs/common';
import type { ExperimentAnalysis, FirewallPolicyExperiment } from '@rollout/contracts';
import type { ClaimedWrite } from '@rollout/platform/event-store';
import type { ExperimentState } from '@rollout/domain/experiment';
import { DataSource, EntityManager } from 'typeorm';
import type { StateCondition } from '../read-models/filter';
import { ExperimentRecord } from '../read-models/records';

@Injectable()
export class ExperimentsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Without `analysis` the stored one stays (only create and update analyse). */
  save(after: ExperimentState, resource: string | undefined, analysis?: string): ClaimedWrite {
    if (!after.exists || resource === undefined)
      return (p) =>
        `DELETE FROM experiments WHERE name = ${p(after.name)} AND EXISTS (SELECT 1 FROM claimed)`;
    return (p) =>
      `INSERT INTO experiments (name, policy_name, state, resource${analysis ? ', analysis' : ''})
       SELECT ${p(after.name)}, ${p(after.policyName)}, ${p(after.preview?.state ?? null)}::text, ${p(resource)}::jsonb${analysis ? `, ${p(analysis)}::jsonb` : ''} FROM claimed
       ON CONFLICT (name) DO UPDATE SET state = EXCLUDED.state, resource = EXCLUDED.resource${analysis ? ', analysis = EXCLUDED.analysis' : ''}`;
  }

  countOfPolicy(manager: EntityManager, policyName: string): Promise<number> {
    return manager.getRepository(ExperimentRecord).countBy({ policyName });
  }

  async namesOfPolicy(manager: EntityManager, policyName: string): Promise<string[]> {
    const rows: { name: string }[] = await manager.query(
      `SELECT name FROM experiments WHERE policy_name = $1`,
      [policyName],
    );
    return rows.map((row) => row.name);
  }

  async find(name: string): Promise<FirewallPolicyExperiment | undefined> {
    const record = await this.dataSource.getRepository(ExperimentRecord).findOneBy({ name });
    return record ? withAnalysis(record) : undefined;
  }

  async list(
    policyName: string,
    after: string,
    limit: number,
    conditions: StateCondition[],
  ): Promise<FirewallPolicyExperiment[]> {
    const params: unknown[] = [policyName, after, limit];
    const where = conditions.map((c) => {
      params.push(c.state);
      return `coalesce(state, 'STATE_UNDEFINED') ${c.op === '=' ? '=' : '<>'} $${params.length}`;
    });
    const rows: { resource: FirewallPolicyExperiment; analysis: ExperimentAnalysis | null }[] =
      await this.dataSource.query(
        `SELECT resource, analysis FROM experiments WHERE policy_name = $1 AND name > $2 ${where.map((w) => `AND ${w}`).join(' ')}
       ORDER BY name LIMIT $3`,
        params,
      );
    return rows.map(withAnalysis);
  }
}

function withAnalysis(record: {
  resource: FirewallPolicyExperiment;
  analysis: ExperimentAnalysis | null;
}): FirewallPolicyExperiment {
  return record.analysis ? { ...record.resource, analysis: record.analysis } : record.resource;
}
