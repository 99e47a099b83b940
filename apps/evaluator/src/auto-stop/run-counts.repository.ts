import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What one experiment version has counted, over all its configurations. */
export interface RunCountsRow {
  experiment: string;
  experiment_etag: string;
  evaluated: string;
  allow_to_deny: string;
}

/** The counts auto-stop judges a run by, read from the report's configurations. */
@Injectable()
export class RunCountsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every counted version of these experiments, in one query. */
  async ofExperiments(names: string[]): Promise<RunCountsRow[]> {
    const rows: RunCountsRow[] = await this.dataSource.query(
      `SELECT c.experiment, v.experiment_etag, sum(c.evaluated) AS evaluated, sum(c.allow_to_deny) AS allow_to_deny
       FROM preview_configurations c JOIN preview_versions v ON v.id = c.version_id
       WHERE c.experiment = ANY($1::text[]) GROUP BY c.experiment, v.experiment_etag`,
      [names],
    );
    return rows;
  }
}
