import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { BacktestOperation, PREVIEW_SUBJECTS, formatExperimentName } from '@rollout/contracts';
import type { ExperimentPath } from '../experiments/experiments.client';
import { BackendClient } from '../http/backend-client';
import { RequestId } from '../http/request-id.decorator';
import { BacktestBodyDto, BacktestOperationDto } from './backtest.dto';
import { experimentVerbRoute } from '../http/resource-routes';

/** AIP-136: replays what TRAFFIC still retains against the experiment now, apart from its live preview. */
@ApiTags('firewall policies')
@ApiParam({ name: 'project' })
@ApiParam({ name: 'location' })
@Controller()
export class BacktestController {
  constructor(private readonly backend: BackendClient) {}

  @Post(experimentVerbRoute('backtest'))
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOperation({
    summary:
      'Backtest: replay the retained traffic of the policy against the experiment (any state) and the live policy, as they stand now',
    description:
      'Bounded by what TRAFFIC retains; the result says so (window). Its counts are kept apart from the live preview. See docs/backtest.md.',
  })
  @ApiBody({ type: BacktestBodyDto, required: false })
  @ApiOkResponse({ type: BacktestOperationDto, description: 'The operation, not yet done' })
  @ApiResponse({
    status: 400,
    description: 'INVALID_ARGUMENT: a bad time, or endTime before startTime',
  })
  @ApiResponse({
    status: 404,
    description: 'NOT_FOUND: no such experiment (a committed one is gone too)',
  })
  @ApiResponse({
    status: 503,
    description: 'UNAVAILABLE: the evaluator is not running, or still loading',
  })
  @HttpCode(200)
  backtest(
    @Param() path: ExperimentPath,
    @Body() body: BacktestBodyDto,
    @RequestId() traceId?: string,
  ): Promise<BacktestOperation> {
    const name = formatExperimentName(path);
    return this.backend.call<BacktestOperation>(
      PREVIEW_SUBJECTS.backtest,
      { name, startTime: body?.startTime, endTime: body?.endTime },
      traceId,
    );
  }
}
