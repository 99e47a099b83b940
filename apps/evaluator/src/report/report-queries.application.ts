import { Injectable } from '@nestjs/common';
import {
  ExperimentAnalysis,
  GetPreviewReportRequest,
  PreviewCoverage,
  PreviewReport,
  RuleCount,
} from '@rollout/contracts';
import { analyzeExperiment } from '@rollout/domain/firewall';
import { coverageOf, requireExperimentName } from '@rollout/domain/preview';
import { PreviewStateService } from '../state/preview-state.service';
import { TrafficLag } from '../traffic/traffic-lag';
import { configurationReport, ruleCountsOf } from './configuration-report';
import { ConfigurationRow } from './report-rows';
import { ReportRepository } from './report.repository';

/**
 * previewReport, from the evaluator's Postgres schema.
 *
 * Whether the experiment exists is the experiment-service's to say (the gateway asks it): an
 * experiment the evaluator has nothing of simply has an empty report here, so a freshly created
 * experiment is never reported missing while its events are on their way, and the report of a
 * committed or deleted one stays readable until retention removes it.
 */
@Injectable()
export class ReportQueries {
  /** Analyses of held (experiment etag, live etag) pairs: computed once, they never change. */
  private readonly analyses = new Map<string, ExperimentAnalysis>();

  constructor(
    private readonly reports: ReportRepository,
    private readonly lag: TrafficLag,
    private readonly snapshot: PreviewStateService,
  ) {}

  async report(request: GetPreviewReportRequest): Promise<PreviewReport> {
    const name = requireExperimentName(request?.name, 'name').name;
    const configurations = await this.reports.configurations(name);
    if (configurations.length === 0) return { name, configurations: [] };
    const [details, lag] = await Promise.all([
      this.reports.details(configurations.map((c) => c.id)),
      this.lag.read(),
    ]);
    const covered = await this.coverage(name, configurations, (id) =>
      ruleCountsOf(details.rules, id, 1),
    );
    return {
      name,
      configurations: configurations.map((c) =>
        configurationReport(c, details, lag, covered?.id === c.id ? covered.coverage : undefined),
      ),
    };
  }

  /**
   * The coverage of the configuration whose experiment and live versions the evaluator holds
   * now, if it is one of these; its analysis is computed on first use and kept (at most 100).
   */
  private async coverage(
    name: string,
    configurations: readonly ConfigurationRow[],
    experimentRuleCounts: (id: number) => RuleCount[],
  ): Promise<{ id: number; coverage: PreviewCoverage } | undefined> {
    const held = this.snapshot.state.versionsOf(name);
    const configuration =
      held &&
      configurations.find(
        (c) => c.experiment_etag === held.experimentEtag && c.live_policy_etag === held.liveEtag,
      );
    if (!held || !configuration) return undefined;
    const key = `${name}\n${held.experimentEtag}\n${held.liveEtag}`;
    let analysis = this.analyses.get(key);
    if (!analysis) {
      analysis = analyzeExperiment(
        { rules: held.liveRules },
        { rules: held.experimentRules },
        held.liveEtag,
      );
      if (this.analyses.size >= 100)
        this.analyses.delete(this.analyses.keys().next().value as string);
      this.analyses.set(key, analysis);
    }
    const flows = await this.reports.flowConnections(configuration.id);
    return {
      id: configuration.id,
      coverage: coverageOf({
        analysis,
        experimentRules: held.experimentRules,
        flows: flows.map((f) => ({
          direction: f.direction,
          srcIp: f.srcIp,
          destIp: f.destIp,
          protocol: f.protocol,
          ...(f.destPort === null ? {} : { destPort: f.destPort }),
        })),
        changedOutsideFlows: Number(configuration.changed_outside_flows),
        experimentRuleCounts: experimentRuleCounts(configuration.id),
      }),
    };
  }
}
