import { Body, Controller, Get, Injectable, Param, Patch, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import {
  EXPERIMENT_SUBJECTS as S,
  ProjectSettings,
  UpdateProjectSettingsRequest,
} from '@rollout/contracts';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { CurrentPrincipal, RequireRole } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { BackendClient } from '../http/backend-client';
import { RequestId } from '../http/request-id.decorator';
import { caller } from './command-caller';
import { UpdateQueryDto } from './experiment-operations.dto';
import { Caller, command } from './experiments.client';

export class ProjectSettingsDto implements Partial<ProjectSettings> {
  @ApiPropertyOptional({ readOnly: true, example: 'projects/acme/settings' })
  @IsOptional()
  @IsString()
  name?: string;
  @ApiPropertyOptional({
    example: true,
    description:
      'A commit is a proposal (…:proposeCommit) that another editor approves (…:approveCommit); …:commit alone is 400 FAILED_PRECONDITION (REVIEW_REQUIRED). Default false',
  })
  @IsOptional()
  @IsBoolean()
  requireCommitReview?: boolean;
  @ApiPropertyOptional({ description: 'On update: must be the current etag (else 409 ABORTED)' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  etag?: string;
  @ApiPropertyOptional({ readOnly: true, format: 'date-time' })
  @IsOptional()
  @IsString()
  updateTime?: string;
}

class ProjectSettingsResponseDto implements ProjectSettings {
  @ApiProperty({ example: 'projects/acme/settings' }) name!: string;
  @ApiProperty({ example: false }) requireCommitReview!: boolean;
  @ApiProperty() etag!: string;
  @ApiPropertyOptional({ format: 'date-time' }) updateTime?: string;
}

@Injectable()
export class ProjectSettingsClient {
  constructor(private readonly backend: BackendClient) {}

  get(project: string, traceId?: string) {
    return this.backend.call<ProjectSettings>(
      S.getProjectSettings,
      { name: `projects/${project}/settings` },
      traceId,
    );
  }

  update(
    project: string,
    settings: { etag?: string; requireCommitReview?: boolean },
    updateMask: string | undefined,
    who: Caller,
  ) {
    const request: UpdateProjectSettingsRequest = {
      settings: { ...settings, name: `projects/${project}/settings` },
      ...(updateMask ? { updateMask } : {}),
      ...command(who),
    };
    return this.backend.call<ProjectSettings>(S.updateProjectSettings, request, who.traceId);
  }
}

/** `projects/{project}/settings`: how the project's live policies may change (experiment.v1 1.6.0). */
@ApiTags('projects')
@ApiParam({ name: 'project' })
@Controller('v1/projects/:project/settings')
export class ProjectSettingsController {
  constructor(private readonly settings: ProjectSettingsClient) {}

  @Get()
  @RequireRole('viewer')
  @ApiOperation({ summary: "The project's settings (the defaults until changed)" })
  @ApiOkResponse({ type: ProjectSettingsResponseDto })
  get(@Param('project') project: string, @RequestId() traceId?: string) {
    return this.settings.get(project, traceId);
  }

  @Patch()
  @RequireRole('admin')
  @ApiOperation({
    summary: "Change the project's settings (admin): requireCommitReview",
  })
  @ApiBody({ type: ProjectSettingsDto })
  @ApiOkResponse({ type: ProjectSettingsResponseDto })
  @ApiResponse({ status: 409, description: 'ABORTED: the etag is stale' })
  update(
    @Param('project') project: string,
    @Query() query: UpdateQueryDto,
    @Body() body: ProjectSettingsDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.settings.update(
      project,
      {
        ...(body.etag !== undefined ? { etag: body.etag } : {}),
        ...(body.requireCommitReview !== undefined
          ? { requireCommitReview: body.requireCommitReview }
          : {}),
      },
      query.updateMask,
      caller(principal, query.requestId, traceId),
    );
  }
}
