import { Injectable } from '@nestjs/common';
import type { QuotaResult } from '@rollout/contracts';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';

export interface OpenedSession {
  sessionId: string;
  /** CreateSessions not yet closed, this one included. */
  refs: number;
}

export type ClosedSession = { found: false } | { found: true; refs: number };

export type Hours = Record<string, number>;

/** Every change to a project's charges runs in a transaction holding the project's row lock. */
@Injectable()
export class BudgetRepository {
  constructor(private readonly dataSource: DataSource) {}

  async openSession(configKey: string, config: unknown, now: Date): Promise<OpenedSession> {
    const id = `s-${randomBytes(12).toString('hex')}`;
    const rows: { id: string; refs: number }[] = await this.dataSource.query(
      `INSERT INTO sessions (id, config_key, config, refs, create_time, update_time)
       VALUES ($1, $2, $3, 1, $4, $4)
       ON CONFLICT (config_key) DO UPDATE SET refs = sessions.refs + 1, update_time = EXCLUDED.update_time
       RETURNING id, refs`,
      [id, configKey, JSON.stringify(config), now],
    );
    return { sessionId: rows[0].id, refs: rows[0].refs };
  }

  async closeSession(sessionId: string, now: Date): Promise<ClosedSession> {
    return this.dataSource.transaction(async (manager) => {
      const rows: { refs: number }[] = await manager.query(
        'SELECT refs FROM sessions WHERE id = $1 FOR UPDATE',
        [sessionId],
      );
      if (!rows.length) return { found: false };
      const refs = rows[0].refs - 1;
      if (refs === 0) await manager.query('DELETE FROM sessions WHERE id = $1', [sessionId]);
      else
        await manager.query('UPDATE sessions SET refs = $2, update_time = $3 WHERE id = $1', [
          sessionId,
          refs,
          now,
        ]);
      return { found: true, refs };
    });
  }

  async sessionConfig(sessionId: string): Promise<unknown> {
    const rows: { config: unknown }[] = await this.dataSource.query(
      'SELECT config FROM sessions WHERE id = $1',
      [sessionId],
    );
    return rows[0]?.config;
  }

  async openSessions(): Promise<number> {
    const rows: { n: string }[] = await this.dataSource.query('SELECT count(*) AS n FROM sessions');
    return Number(rows[0].n);
  }

  async spent(
    project: string,
    resourceTypes: readonly string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Hours> {
    const rows: { resource_type: string; hours: string }[] = await manager.query(
      `SELECT resource_type, sum(hours) AS hours FROM lease_charges
       WHERE project = $1 AND resource_type = ANY($2) GROUP BY resource_type`,
      [project, resourceTypes],
    );
    const out: Hours = Object.fromEntries(resourceTypes.map((type) => [type, 0]));
    for (const row of rows) out[row.resource_type] = Number(row.hours);
    return out;
  }

  /** Under the project's lock, the first answer to `dedupId` is returned as it was: a retry is charged once. */
  async grantOnce(
    project: string,
    leaseKey: string,
    dedupId: string,
    resourceTypes: readonly string[],
    now: Date,
    decide: (spent: Hours) => { result: QuotaResult; granted: Hours },
  ): Promise<{ result: QuotaResult; replayed: boolean }> {
    return this.dataSource.transaction(async (manager) => {
      await this.lockProject(manager, project);
      const previous: { result: QuotaResult }[] = await manager.query(
        'SELECT result FROM quota_grants WHERE dedup_id = $1',
        [dedupId],
      );
      if (previous.length) return { result: previous[0].result, replayed: true };
      const { result, granted } = decide(await this.spent(project, resourceTypes, manager));
      for (const [type, hours] of Object.entries(granted)) {
        if (hours <= 0) continue;
        await manager.query(
          `INSERT INTO lease_charges (project, lease_key, resource_type, hours, update_time) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (project, lease_key, resource_type) DO UPDATE
           SET hours = lease_charges.hours + EXCLUDED.hours, update_time = EXCLUDED.update_time`,
          [project, leaseKey, type, hours, now],
        );
      }
      await manager.query(
        'INSERT INTO quota_grants (dedup_id, project, lease_key, result, create_time) VALUES ($1, $2, $3, $4, $5)',
        [dedupId, project, leaseKey, JSON.stringify(result), now],
      );
      return { result, replayed: false };
    });
  }

  /** Types `recharge` leaves out keep their charge; returns the change in hours. */
  async recharge(
    project: string,
    leaseKey: string,
    now: Date,
    recharge: (charged: Hours) => Hours,
  ): Promise<Hours> {
    return this.dataSource.transaction(async (manager) => {
      await this.lockProject(manager, project);
      const rows: { resource_type: string; hours: string }[] = await manager.query(
        'SELECT resource_type, hours FROM lease_charges WHERE project = $1 AND lease_key = $2',
        [project, leaseKey],
      );
      const charged: Hours = Object.fromEntries(
        rows.map((r) => [r.resource_type, Number(r.hours)]),
      );
      const next = recharge(charged);
      const delta: Hours = {};
      for (const [type, hours] of Object.entries(next)) {
        const before = charged[type] ?? 0;
        if (hours === before) continue;
        delta[type] = hours - before;
        await manager.query(
          `INSERT INTO lease_charges (project, lease_key, resource_type, hours, update_time) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (project, lease_key, resource_type) DO UPDATE SET hours = EXCLUDED.hours, update_time = EXCLUDED.update_time`,
          [project, leaseKey, type, hours, now],
        );
      }
      return delta;
    });
  }

  private async lockProject(manager: EntityManager, project: string): Promise<void> {
    await manager.query('INSERT INTO projects (project) VALUES ($1) ON CONFLICT DO NOTHING', [
      project,
    ]);
    await manager.query('SELECT project FROM projects WHERE project = $1 FOR UPDATE', [project]);
  }
}
