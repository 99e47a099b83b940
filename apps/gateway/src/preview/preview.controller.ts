import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { ExperimentPath } from '../experiments/experiments.client';
import { RequestId } from '../http/request-id.decorator';
import {
  ListPreviewFlowsResponseDto,
  PREVIEW_FLOWS_FILTER_GRAMMAR,
  PreviewFlowsQueryDto,
} from './preview-flows.dto';
import { ListPreviewLogsResponseDto, PreviewLogsQueryDto } from './preview-logs.dto';
import { PreviewReportDto, PreviewReportQueryDto } from './preview-report.dto';
import { PreviewClient } from './preview.client';
import { EXPERIMENT_ROUTE } from '../http/resource-routes';

/** AIP-236; kept by the evaluator, readable after a commit or deletion. */
@ApiTags('firewall policies')
@ApiParam({ name: 'project' })
@ApiParam({ name: 'location' })
@ApiParam({ name: 'policy' })
@ApiParam({ name: 'experiment' })
@ApiResponse({
  status: 400,
  description: 'INVALID_ARGUMENT: a bad name, filter, page size or page token',
})
@ApiResponse({
  status: 404,
  description: 'NOT_FOUND: no such experiment, and nothing the evaluator holds of one',
})
@ApiResponse({
  status: 503,
  description: 'UNAVAILABLE: the evaluator is not running, or still loading',
})
@Controller(EXPERIMENT_ROUTE)
export class PreviewController {
  constructor(private readonly preview: PreviewClient) {}

  @Get('previewFlows')
  @ApiOperation({
    summary:
      'Changed decisions of the experiment aggregated by flow, with sample events; newest configuration first (AIP-132, AIP-160 filter)',
    description:
      'One entry per changed flow of a configuration: the connection without its source port and the two deciding rules, ' +
      'with its exact count, first and last event time and its first events as samples. Unchanged decisions are counted ' +
      `in previewReport, not listed. Readable after a commit or deletion while the evaluator holds it. filter: ${PREVIEW_FLOWS_FILTER_GRAMMAR}`,
  })
  @ApiOkResponse({ type: ListPreviewFlowsResponseDto })
  previewFlows(
    @Param() path: ExperimentPath,
    @Query() query: PreviewFlowsQueryDto,
    @RequestId() traceId?: string,
  ) {
    return this.preview.previewFlows(
      path,
      { filter: query.filter, pageSize: query.pageSize, pageToken: query.pageToken },
      traceId,
    );
  }

  // Deprecated in preview.v1 1.1.0; BackendClient adds the headers and counts the use.
  @Get('previewLogs')
  @ApiOperation({
    deprecated: true,
    summary:
      'Deprecated: the sample records of the changed flows, newest configuration first; use previewFlows',
    description:
      'Deprecated since preview.v1 1.1.0 (sunset 2027-12-31): use previewFlows, with a filter instead of changedOnly. ' +
      'Lists only the sample records of the changed flows, rebuilt as they were logged; unchanged decisions are counted ' +
      'in previewReport, not listed. Responses carry `Deprecation`, `Sunset` and `Link: rel="deprecation"` headers.',
  })
  @ApiOkResponse({ type: ListPreviewLogsResponseDto })
  previewLogs(
    @Param() path: ExperimentPath,
    @Query() query: PreviewLogsQueryDto,
    @RequestId() traceId?: string,
  ) {
    return this.preview.previewLogs(
      path,
      { changedOnly: query.changedOnly, pageSize: query.pageSize, pageToken: query.pageToken },
      traceId,
    );
  }

  @Get('previewReport')
  @ApiOperation({
    summary:
      'Exact totals per (experiment etag, live policy etag): outcomes, deciding rules, top changed sources and ports, flows kept',
    description:
      'Configurations newest first, a page at a time (pageSize, pageToken): the first page carries the readiness gates and the reportEtag.',
  })
  @ApiOkResponse({ type: PreviewReportDto })
  previewReport(
    @Param() path: ExperimentPath,
    @Query() query: PreviewReportQueryDto,
    @RequestId() traceId?: string,
  ) {
    return this.preview.previewReport(
      path,
      { pageSize: query.pageSize, pageToken: query.pageToken },
      traceId,
    );
  }
}
