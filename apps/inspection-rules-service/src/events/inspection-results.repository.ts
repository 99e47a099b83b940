import { Injectable } from '@nestjs/common';
import type { InspectionResult } from '@rollout/contracts';
import { DataSource } from 'typeorm';
import { query } from '../database/query';

/** The one result of each inspection event id, as published. */
@Injectable()
export class InspectionResultsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(eventId: string): Promise<InspectionResult | undefined> {
    const rows = await query<{ result: string }[]>(
      this.dataSource,
      'SELECT result FROM inspection_results WHERE event_id = $1',
      [eventId],
    );
    return rows[0] && (JSON.parse(rows[0].result) as InspectionResult);
  }

  /** Stores the result unless one is stored already, and returns the stored one: the first writer wins. */
  async keepFirst(result: InspectionResult): Promise<InspectionResult> {
    await query(
      this.dataSource,
      'INSERT INTO inspection_results (event_id, result) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING',
      [result.eventId, JSON.stringify(result)],
    );
    return (await this.find(result.eventId)) ?? result;
  }
}
