import { Injectable } from '@nestjs/common';
import {
  ExperimentAnalysis,
  GetPreviewReportRequest,
  PreviewReport,
  requireExperimentName,
} from '@rollout/contracts';
import { analyzeExperiment } from '@rollout/domain/firewall';
import { HeldVersions, buildReport, reportReading } from '@rollout/domain/preview';
import { PreviewAppliedRepository } from '../state/preview-applied.repository';
import { PreviewStateService } from '../state/preview-state.service';
import { TrafficLag } from '../traffic/traffic-lag';
import { ReportRepository } from './report.repository';

/**
 * previewReport: one read of the store, the TRAFFIC backlog, previewAppliedTime and the
 * experiment as the evaluator holds it, folded by buildReport (docs/preview-reports.md).
 *
 * Whether the experiment exists is the experiment-service's to say (the gateway asks it): one the
 * evaluator has nothing of has an empty report here, so a freshly created experiment is never
 * reported missing while its events are on their way, and a committed or deleted one's report
 * stays readable until retention removes it.
 */
@Injectable()
export class ReportQueries {
  /** Analyses of held (experiment etag, live etag) pairs: computed once, they never change. */
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
    const held = this.snapshot.state.experimentOf(name);
    const versions = this.snapshot.state.versionsOf(name);
    const [rows, lag, previewAppliedTime] = await Promise.all([
      this.reports.read(name, reportReading(held, versions)),
      this.lag.read(),
      this.appliedTimes.read(name),
    ]);
    // Coverage's flows are read only when the configuration of the versions in force is there.
    const coverage =
      versions && rows.coverageFlows
        ? { versions, analysis: this.analysis(name, versions) }
        : undefined;
    const report = buildReport(name, rows, { held, coverage, lag });
    return previewAppliedTime ? { ...report, previewAppliedTime } : report;
  }

  /**
   * The static analysis of these versions, computed on first use and kept while they are the
   * versions held (at most 100): one of an experiment updated, committed or deleted, or of a
   * live version replaced, is forgotten when the next one is computed.
   */
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

const analysisKey = (experiment: string, versions: HeldVersions) =>
  `${experiment}\n${versions.experimentEtag}\n${versions.liveEtag}`;
