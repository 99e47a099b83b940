import { Injectable } from '@nestjs/common';
import {
  ExperimentAnalysis,
  GetPreviewReportRequest,
  PREVIEW_REPORT_PAGE_BYTES,
  PREVIEW_REPORT_PAGE_SIZES,
  PreviewReport,
  decodePageToken,
  encodePageToken,
  invalidPageToken,
  pageSizeOf,
  requireExperimentName,
} from '@rollout/contracts';
import { analyzeExperiment } from '@rollout/domain/firewall';
import {
  HeldVersions,
  buildReport,
  configurationsWithin,
  reportReading,
} from '@rollout/domain/preview';
import { PreviewAppliedRepository } from '../state/preview-applied.repository';
import { PreviewStateService } from '../state/preview-state.service';
import { TrafficLag } from '../traffic/traffic-lag';
import { ReportRepository } from './report.repository';

/**
 * Whether the experiment exists is the experiment-service's to say: an unknown one has an empty
 * report here, so a fresh one is never missing while its events are on their way.
 */
@Injectable()
export class ReportQueries {
  /** By (experiment etag, live etag): they never change. */
  private readonly analyses = new Map<
    string,
    { experiment: string; analysis: ExperimentAnalysis }
  >();

  constructor(
    private readonly reports: ReportRepository,
    private readonly lag: TrafficLag,
    private readonly snapshot: PreviewStateService,
    private readonly appliedTimes: PreviewAppliedRepository,
  ) {}

  async report(request: GetPreviewReportRequest): Promise<PreviewReport> {
    const name = requireExperimentName(request?.name, 'name').name;
    const size = pageSizeOf(request?.pageSize, PREVIEW_REPORT_PAGE_SIZES);
    const before = reportCursor(request?.pageToken, name);
    const first = before === undefined;
    // Readiness is judged on the first page only: the configuration it judges is among the newest.
    const held = first ? this.snapshot.state.experimentOf(name) : undefined;
    const versions = this.snapshot.state.versionsOf(name);
    const [page, lag, previewAppliedTime] = await Promise.all([
      this.reports.read(name, reportReading(held, versions), { before, size }),
      this.lag.read(),
      first ? this.appliedTimes.read(name) : undefined,
    ]);
    // Coverage's flows are read only when the configuration of the versions in force is there.
    const coverage =
      versions && page.rows.coverageFlows
        ? { versions, analysis: this.analysis(name, versions) }
        : undefined;
    const inputs = { held, coverage, lag };
    let rows = page.rows;
    let report = buildReport(name, rows, inputs);
    const fits = configurationsWithin(report.configurations, PREVIEW_REPORT_PAGE_BYTES);
    if (fits < rows.configurations.length) {
      rows = { ...rows, configurations: rows.configurations.slice(0, fits) };
      report = buildReport(name, rows, inputs);
    }
    const last = rows.configurations.at(-1);
    const more = page.more || fits < page.rows.configurations.length;
    const nextPageToken = more && last ? encodePageToken(name, { before: last.id }) : undefined;
    if (!first) return { name, configurations: report.configurations, nextPageToken };
    return {
      ...report,
      ...(nextPageToken ? { nextPageToken } : {}),
      ...(previewAppliedTime ? { previewAppliedTime } : {}),
    };
  }

  /** Kept while they are the versions held (at most 100). */
  private analysis(name: string, held: HeldVersions): ExperimentAnalysis {
    const key = analysisKey(name, held);
    let analysis = this.analyses.get(key)?.analysis;
    if (!analysis) {
      analysis = analyzeExperiment(
        { rules: held.liveRules },
        { rules: held.experimentRules },
        held.liveEtag,
      );
      for (const [kept, { experiment }] of this.analyses) {
        const versions = this.snapshot.state.versionsOf(experiment);
        if (!versions || analysisKey(experiment, versions) !== kept) this.analyses.delete(kept);
      }
      if (this.analyses.size >= 100)
        this.analyses.delete(this.analyses.keys().next().value as string);
      this.analyses.set(key, { experiment: name, analysis });
    }
    return analysis;
  }
}

function reportCursor(token: unknown, experiment: string): number | undefined {
  const cursor = decodePageToken(token, experiment);
  if (cursor === undefined) return undefined;
  if (!Number.isSafeInteger(cursor.before)) throw invalidPageToken();
  return cursor.before as number;
}

const analysisKey = (experiment: string, versions: HeldVersions) =>
  `${experiment}\n${versions.experimentEtag}\n${versions.liveEtag}`;
