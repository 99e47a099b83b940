import { Injectable } from '@nestjs/common';
import type { CommitProposal } from '@rollout/contracts';
import { DataSource, EntityManager } from 'typeorm';

/** One at most per experiment; a proposal for another etag than the experiment's is stale, never shown or approved. */
@Injectable()
export class CommitProposalsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(experiment: string, manager?: EntityManager): Promise<CommitProposal | undefined> {
    const rows: { proposal: CommitProposal }[] = await (manager ?? this.dataSource.manager).query(
      `SELECT proposal FROM commit_proposals WHERE experiment = $1`,
      [experiment],
    );
    return rows[0]?.proposal;
  }

  async save(experiment: string, proposal: CommitProposal, manager: EntityManager) {
    await manager.query(
      `INSERT INTO commit_proposals (experiment, proposal) VALUES ($1, $2::jsonb)
       ON CONFLICT (experiment) DO UPDATE SET proposal = EXCLUDED.proposal`,
      [experiment, JSON.stringify(proposal)],
    );
  }

  /** Once committed, the proposal is in the revision. */
  async remove(experiment: string, manager: EntityManager) {
    await manager.query(`DELETE FROM commit_proposals WHERE experiment = $1`, [experiment]);
  }
}
