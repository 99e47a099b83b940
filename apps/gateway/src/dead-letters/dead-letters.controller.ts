import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DeadLetterSummary, PREVIEW_SUBJECTS, formatParent } from '@rollout/contracts';
import { BackendClient } from '../http/backend-client';
import { RequestId } from '../http/request-id.decorator';
import {
  DEAD_LETTER_SUMMARY_EXAMPLE,
  DeadLetterSummaryDto,
  DeadLettersQueryDto,
} from './dead-letters.dto';
import { LOCATION_ROUTE } from '../http/resource-routes';

/** So that a producer's typo in a project or policy id is seen. */
@ApiTags('dead letters')
@ApiParam({ name: 'project' })
@ApiParam({ name: 'location' })
@ApiResponse({ status: 400, description: 'INVALID_ARGUMENT: a bad policy id' })
@ApiResponse({ status: 404, description: 'NOT_FOUND: a project the principal may not see' })
@ApiResponse({ status: 503, description: 'UNAVAILABLE: the evaluator is not running' })
@Controller(LOCATION_ROUTE)
export class DeadLettersController {
  constructor(private readonly backend: BackendClient) {}

  @Get('deadLetters')
  @ApiOperation({
    summary:
      'Traffic messages the evaluator dead-lettered, by policy id (existing or not) and reason',
    description:
      'Counts per policy id and reason, with the last time, and the newest samples. Without `policy`, the whole ' +
      'project location, including policy ids that do not exist (typos: `unknown_policy`). A traffic subject that ' +
      'names no project is not counted here (the evaluator_dead_letters_total metric only).',
  })
  @ApiOkResponse({ type: DeadLetterSummaryDto, example: DEAD_LETTER_SUMMARY_EXAMPLE })
  deadLetters(
    @Param('project') project: string,
    @Param('location') location: string,
    @Query() query: DeadLettersQueryDto,
    @RequestId() traceId?: string,
  ): Promise<DeadLetterSummary> {
    return this.backend.call<DeadLetterSummary>(
      PREVIEW_SUBJECTS.deadLetters,
      { parent: formatParent({ project, location }), policy: query.policy },
      traceId,
    );
  }
}
