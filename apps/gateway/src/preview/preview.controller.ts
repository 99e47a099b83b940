import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { ExperimentPath } from '../experiments/experiments.use-case';
import { RequestId } from '../http/request-id.decorator';
import { ListPreviewLogsResponseDto, PreviewLogsQueryDto, PreviewReportDto } from './preview.dto';
import { PreviewUseCase } from './preview.use-case';

/**
 * The results of previewing an experiment against production traffic (AIP-236 logs), kept by
 * the evaluator: every record, and exact totals per configuration.
 */
@ApiTags('firewall policies')
@ApiParam({ name: 'project' })
@ApiParam({ name: 'location' })
@ApiParam({ name: 'policy' })
@ApiParam({ name: 'experiment' })
@ApiResponse({ status: 400, description: 'INVALID_ARGUMENT: a bad name, page size or page token' })
@ApiResponse({ status: 404, description: 'NOT_FOUND: no such experiment, and no records of one' })
@ApiResponse({ status: 503, description: 'UNAVAILABLE: the evaluator is not running, or still loading' })
@Controller('v1/projects/:project/locations/:location/firewallPolicies/:policy/experiments/:experiment')
export class PreviewController {
  constructor(private readonly preview: PreviewUseCase) {}

  @Get('previewLogs')
  @ApiOperation({ summary: 'Preview log records of the experiment, newest configuration first; changedOnly=true for changed verdicts only' })
  @ApiOkResponse({ type: ListPreviewLogsResponseDto })
  previewLogs(@Param() path: ExperimentPath, @Query() query: PreviewLogsQueryDto, @RequestId() traceId?: string) {
    return this.preview.previewLogs(path, { changedOnly: query.changedOnly, pageSize: query.pageSize, pageToken: query.pageToken }, traceId);
  }

  @Get('previewReport')
  @ApiOperation({ summary: 'Exact totals per (experiment etag, live policy etag): outcomes, deciding rules, top changed sources and ports' })
  @ApiOkResponse({ type: PreviewReportDto })
  previewReport(@Param() path: ExperimentPath, @RequestId() traceId?: string) {
    return this.preview.previewReport(path, traceId);
  }
}
