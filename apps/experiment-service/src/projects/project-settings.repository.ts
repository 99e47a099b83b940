import { Inject, Injectable } from '@nestjs/common';
import {
  type Clock,
  GetRequest,
  ProjectSettings,
  StatusError,
  UpdateProjectSettingsRequest,
  requireResourceId,
} from '@rollout/contracts';
import { checkEtag, etagOf } from '@rollout/domain/experiment';
import { CLOCK } from '@rollout/platform/service-kit';
import { DataSource, EntityManager } from 'typeorm';
import { commandMetadata } from '../aggregates/command-metadata';

interface Row {
  require_commit_review: boolean;
  version: number;
  update_time: Date;
}

const SETTINGS_NAME = /^projects\/([^/]+)\/settings$/;

/** `projects/{project}/settings`: read by every commit, changed by admins. */
@Injectable()
export class ProjectSettingsRepository {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async settings(project: string, manager?: EntityManager): Promise<ProjectSettings> {
    return view(project, await this.row(project, manager ?? this.dataSource.manager));
  }

  private async row(project: string, manager: EntityManager): Promise<Row | undefined> {
    const rows: Row[] = await manager.query(
      `SELECT require_commit_review, version, update_time FROM project_settings WHERE project = $1`,
      [project],
    );
    return rows[0];
  }

  get({ name }: GetRequest): Promise<ProjectSettings> {
    return this.settings(projectOf(name, 'name'));
  }

  async update(request: UpdateProjectSettingsRequest): Promise<ProjectSettings> {
    commandMetadata(request);
    const input = (request.settings ?? {}) as Record<string, unknown>;
    const project = projectOf(input.name, 'settings.name');
    const mask =
      request.updateMask === undefined || request.updateMask === '' || request.updateMask === '*'
        ? ['requireCommitReview']
        : request.updateMask.split(',').map((p) => p.trim());
    const unknown = mask.filter((p) => p !== 'requireCommitReview');
    if (unknown.length)
      throw StatusError.invalidArgument(
        `updateMask names fields that cannot be updated: ${unknown.join(', ')}.`,
        unknown.map((p) => ({ field: `updateMask.${p}`, description: 'not an updatable field' })),
      );
    const wanted = input.requireCommitReview ?? false;
    if (typeof wanted !== 'boolean')
      throw StatusError.invalidArgument('requireCommitReview must be a boolean.', [
        { field: 'settings.requireCommitReview', description: 'must be a boolean' },
      ]);
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`settings/${project}`]);
      const version = (await this.row(project, manager))?.version ?? 0;
      checkEtag('etag', input.etag as string | undefined, settingsName(project), version);
      const rows: Row[] = await manager.query(
        `INSERT INTO project_settings (project, require_commit_review, version, update_time)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (project) DO UPDATE SET require_commit_review = EXCLUDED.require_commit_review,
           version = EXCLUDED.version, update_time = EXCLUDED.update_time
         RETURNING require_commit_review, version, update_time`,
        [project, wanted, version + 1, this.clock.now()],
      );
      return view(project, rows[0]);
    });
  }
}

const settingsName = (project: string) => `projects/${project}/settings`;

function view(project: string, row: Row | undefined): ProjectSettings {
  const name = settingsName(project);
  return {
    name,
    requireCommitReview: row?.require_commit_review ?? false,
    etag: etagOf(name, row?.version ?? 0),
    ...(row ? { updateTime: new Date(row.update_time).toISOString() } : {}),
  };
}

function projectOf(name: unknown, field: string): string {
  const match = typeof name === 'string' ? SETTINGS_NAME.exec(name) : null;
  if (!match)
    throw StatusError.invalidArgument(`${field} must be projects/{project}/settings.`, [
      { field, description: 'projects/{project}/settings' },
    ]);
  return requireResourceId(field, match[1]);
}
