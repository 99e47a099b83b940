import { Injectable } from '@nestjs/common';
import { ConfigurationBatch } from '@rollout/domain/preview';
import { DataSource } from 'typeorm';

@Injectable()
export class ConfigurationsRepository {
  private readonly versions = new Map<string, number>();
  private readonly configurations = new Map<string, number>();

  constructor(private readonly dataSource: DataSource) {}

  /** Outside the transaction: ids are stable. */
  async idsOf(batches: ConfigurationBatch[]): Promise<Map<ConfigurationBatch['target'], number>> {
    const ids = new Map<ConfigurationBatch['target'], number>();
    for (const { target } of batches) {
      const known = this.configurations.get(target.keys.configuration);
      if (known !== undefined) {
        ids.set(target, known);
        continue;
      }
      const versionId = await this.versionId(target.name, target.etag);
      const id = await this.idOf(
        `WITH created AS (
           INSERT INTO preview_configurations (version_id, experiment, live_policy_etag) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id
         )
         SELECT id FROM created UNION ALL SELECT id FROM preview_configurations WHERE version_id = $1 AND live_policy_etag = $3`,
        [versionId, target.name, target.liveEtag],
      );
      this.configurations.set(target.keys.configuration, id);
      ids.set(target, id);
    }
    return ids;
  }

  private async versionId(experiment: string, etag: string): Promise<number> {
    const key = `${experiment}\n${etag}`;
    const known = this.versions.get(key);
    if (known !== undefined) return known;
    const id = await this.idOf(
      `WITH created AS (
         INSERT INTO preview_versions (experiment, experiment_etag) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id
       )
       SELECT id FROM created UNION ALL SELECT id FROM preview_versions WHERE experiment = $1 AND experiment_etag = $2`,
      [experiment, etag],
    );
    this.versions.set(key, id);
    return id;
  }

  /**
   * Get-or-create in one statement. When another replica inserts the same key concurrently, the
   * statement's snapshot may see neither row; the next try sees the committed one.
   */
  private async idOf(sql: string, params: unknown[]): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const [row]: { id: number }[] = await this.dataSource.query(sql, params);
      if (row) return row.id;
      if (attempt >= 5) throw new Error('cannot create or find a preview configuration');
    }
  }

  forget(gone: ReadonlySet<number>): void {
    for (const [key, id] of this.configurations) if (gone.has(id)) this.configurations.delete(key);
    this.versions.clear();
  }

  forgetAll(): void {
    this.configurations.clear();
    this.versions.clear();
  }
}
