import { Injectable } from '@nestjs/common';
import type { InspectionPhase } from '@rollout/contracts';
import type { RuleDefinition, RuleFields } from '@rollout/domain/inspection';
import { DataSource, EntityManager } from 'typeorm';
import { DatabaseError, UNIQUE_VIOLATION, query } from '../database/query';

type Row = Omit<RuleDefinition, 'created_at' | 'updated_at' | 'built_in'> & {
  created_at: Date;
  updated_at: Date | null;
};

const COLUMNS =
  'uuid, created_at, updated_at, priority, description, scope, sensitive, phase, conditions, actions';

function toRule(row: Row): RuleDefinition {
  return {
    ...row,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at ? row.updated_at.toISOString() : null,
    built_in: false,
  };
}

export class DuplicateRuleError extends Error {}

export interface RuleChangeContext {
  actor: string;
  requestId?: string;
}

export type RuleChangeKind = 'created' | 'imported' | 'updated' | 'deleted';

export interface RuleChangeRecord {
  rule_uuid: string;
  change: RuleChangeKind;
  actor: string;
  request_id: string | null;
  time: Date;
}

@Injectable()
export class RulesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** In creation order. */
  async list(filter: { scope?: string; phase?: InspectionPhase } = {}): Promise<RuleDefinition[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.scope !== undefined) where.push(`scope = $${params.push(filter.scope)}`);
    if (filter.phase !== undefined) where.push(`phase = $${params.push(filter.phase)}`);
    const rows = await query<Row[]>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM inspection_rules ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq`,
      params,
    );
    return rows.map(toRule);
  }

  async get(
    uuid: string,
    manager: EntityManager = this.dataSource.manager,
    forUpdate = false,
  ): Promise<RuleDefinition | undefined> {
    const rows = await query<Row[]>(
      manager,
      `SELECT ${COLUMNS} FROM inspection_rules WHERE uuid = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [uuid],
    );
    return rows[0] && toRule(rows[0]);
  }

  /** Inserts all or none; a uuid already taken throws DuplicateRuleError. */
  async insertAll(
    rules: (RuleFields & { uuid: string })[],
    change: RuleChangeContext,
    kind: 'created' | 'imported',
  ): Promise<RuleDefinition[]> {
    return this.dataSource.transaction(async (manager) => {
      const created: RuleDefinition[] = [];
      for (const rule of rules) {
        try {
          const rows = await query<Row[]>(
            manager,
            `INSERT INTO inspection_rules (uuid, priority, description, scope, sensitive, phase, conditions, actions)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
            [
              rule.uuid,
              rule.priority,
              rule.description,
              rule.scope,
              rule.sensitive,
              rule.phase,
              JSON.stringify(rule.conditions),
              JSON.stringify(rule.actions),
            ],
          );
          created.push(toRule(rows[0]));
        } catch (error) {
          if (error instanceof DatabaseError && error.code === UNIQUE_VIOLATION) {
            throw new DuplicateRuleError(rule.uuid);
          }
          throw error;
        }
      }
      await this.record(
        manager,
        created.map((rule) => rule.uuid),
        kind,
        change,
      );
      await this.bump(manager);
      return created;
    });
  }

  /** Reads the rule under a row lock, lets `change` compute the new fields, writes them. */
  async update(
    uuid: string,
    compute: (rule: RuleDefinition) => RuleFields,
    change: RuleChangeContext,
  ): Promise<RuleDefinition | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const current = await this.get(uuid, manager, true);
      if (!current) return undefined;
      const next = compute(current);
      // An UPDATE answers [rows, count] through TypeORM.
      const [rows] = await query<[Row[], number]>(
        manager,
        `UPDATE inspection_rules SET priority = $2, description = $3, scope = $4, sensitive = $5, phase = $6,
           conditions = $7, actions = $8, updated_at = now() WHERE uuid = $1 RETURNING ${COLUMNS}`,
        [
          uuid,
          next.priority,
          next.description,
          next.scope,
          next.sensitive,
          next.phase,
          JSON.stringify(next.conditions),
          JSON.stringify(next.actions),
        ],
      );
      await this.record(manager, [uuid], 'updated', change);
      await this.bump(manager);
      return toRule(rows[0]);
    });
  }

  async delete(uuid: string, change: RuleChangeContext): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [, count] = await query<[unknown, number]>(
        manager,
        'DELETE FROM inspection_rules WHERE uuid = $1',
        [uuid],
      );
      if (!count) return false;
      await this.record(manager, [uuid], 'deleted', change);
      await this.bump(manager);
      return true;
    });
  }

  async deleteAll(change: RuleChangeContext): Promise<string[]> {
    return this.dataSource.transaction(async (manager) => {
      const [rows] = await query<[{ uuid: string }[], number]>(
        manager,
        'DELETE FROM inspection_rules RETURNING uuid',
      );
      const uuids = rows.map((row) => row.uuid);
      await this.record(manager, uuids, 'deleted', change);
      await this.bump(manager);
      return uuids;
    });
  }

  async changes(uuid: string): Promise<RuleChangeRecord[]> {
    return query<RuleChangeRecord[]>(
      this.dataSource,
      'SELECT rule_uuid, change, actor, request_id, time FROM rule_changes WHERE rule_uuid = $1 ORDER BY seq',
      [uuid],
    );
  }

  async revision(): Promise<string> {
    const rows = await query<{ revision: string }[]>(
      this.dataSource,
      'SELECT revision FROM rules_revision',
    );
    return rows[0].revision;
  }

  private async record(
    manager: EntityManager,
    uuids: string[],
    kind: RuleChangeKind,
    change: RuleChangeContext,
  ) {
    if (uuids.length === 0) return;
    await query(
      manager,
      `INSERT INTO rule_changes (rule_uuid, change, actor, request_id)
       SELECT unnest($1::uuid[]), $2, $3, $4`,
      [uuids, kind, change.actor, change.requestId ?? null],
    );
  }

  private async bump(manager: EntityManager) {
    await query(manager, 'UPDATE rules_revision SET revision = revision + 1');
  }
}
