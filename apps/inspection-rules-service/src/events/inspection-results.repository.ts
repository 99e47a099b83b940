import { Injectable } from '@nestjs/common';
import type { InspectionResult } from '@rollout/contracts';
import { DataSource } from 'typeorm';
import { query } from '../database/query';

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

  async keepFirst(result: InspectionResult): Promise<InspectionResult> {
    await query(
      this.dataSource,
      'INSERT INTO inspection_results (event_id, result) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING',
      [result.eventId, JSON.stringify(result)],
    );
    return (await this.find(result.eventId)) ?? result;
  }
}
