import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequestId } from '../http/request-id.decorator';
import { CurrentPrincipal, RequireRole } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { PolicyRevisionsClient } from './policy-revisions.client';
import { ListProjectsResponseDto } from './policy-revisions.dto';

/** The projects a principal may see that hold a live policy: the console's project picker. */
@ApiTags('auth')
@Controller('v1/projects')
export class ProjectsController {
  constructor(private readonly revisions: PolicyRevisionsClient) {}

  @Get()
  @RequireRole('viewer')
  @ApiOperation({
    summary: 'Projects the caller may see that hold at least one live policy, with their counts',
  })
  @ApiOkResponse({ type: ListProjectsResponseDto })
  list(@CurrentPrincipal() principal: Principal, @RequestId() traceId?: string) {
    const only = principal.projects === '*' ? undefined : [...principal.projects];
    return this.revisions.listProjects(only, traceId);
  }
}
