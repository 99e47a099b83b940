import { requirePolicyName, formatParent } from '@rollout/contracts';
import { Injectable } from '@nestjs/common';
import type { FirewallPolicy } from '@rollout/contracts';
import type { ClaimedWrite } from '@rollout/platform/event-store';
import type { PolicyState } from '@rollout/domain/experiment';
import { DataSource } from 'typeorm';
import { PolicyRecord } from '../read-models/records';

@Injectable()
export class PoliciesRepository {
  constructor(private readonly dataSource: DataSource) {}

  save(after: PolicyState, resource: string | undefined): ClaimedWrite {
    if (!after.exists || resource === undefined)
      return (p) =>
        `DELETE FROM policies WHERE name = ${p(after.name)} AND EXISTS (SELECT 1 FROM claimed)`;
    const parent = formatParent(requirePolicyName(after.name));
    return (p) =>
      `INSERT INTO policies (name, parent, resource)
       SELECT ${p(after.name)}, ${p(parent)}, ${p(resource)}::jsonb FROM claimed
       ON CONFLICT (name) DO UPDATE SET resource = EXCLUDED.resource`;
  }

  async find(name: string): Promise<FirewallPolicy | undefined> {
    return (await this.dataSource.getRepository(PolicyRecord).findOneBy({ name }))?.resource;
  }

  async list(parent: string, after: string, limit: number): Promise<FirewallPolicy[]> {
    const rows: { resource: FirewallPolicy }[] = await this.dataSource.query(
      `SELECT resource FROM policies WHERE parent = $1 AND name > $2 ORDER BY name LIMIT $3`,
      [parent, after, limit],
    );
    return rows.map((row) => row.resource);
  }

  async projects(only?: string[]): Promise<{ projectId: string; policyCount: number }[]> {
    const rows: { project: string; count: number }[] = await this.dataSource.query(
      `SELECT split_part(parent, '/', 2) AS project, count(*)::integer AS count FROM policies
        WHERE $1::text[] IS NULL OR split_part(parent, '/', 2) = ANY($1::text[])
        GROUP BY 1 ORDER BY 1`,
      [only ?? null],
    );
    return rows.map((row) => ({ projectId: row.project, policyCount: row.count }));
  }
}
