import { Injectable } from '@nestjs/common';
import { PreviewReport } from '@rollout/contracts';
import { judgedConfiguration, readinessOf, reportEtagOf } from '@rollout/domain/preview';
import { PreviewStateService } from '../state/preview-state.service';
import { ReportRepository } from './report.repository';

/**
 * Adds an experiment's readiness gates and the reportEtag to its finished report
 * (docs/readiness-gates.md). The gates come from the experiment as the evaluator holds it
 * (EXPERIMENT_STATE); only `noDenyToAllowFrom` needs a read of its own, over the judged
 * configuration's flows.
 */
@Injectable()
export class ReportReadiness {
  constructor(
    private readonly reports: ReportRepository,
    private readonly snapshot: PreviewStateService,
  ) {}

  async complete(report: PreviewReport): Promise<PreviewReport> {
    const held = this.snapshot.state.experimentOf(report.name);
    if (!held) return { ...report, reportEtag: reportEtagOf(report, undefined) };
    const judged = judgedConfiguration(held, report.configurations);
    const ranges = [
      ...new Set(
        (held.state.readinessGates ?? []).flatMap((g) =>
          g.noDenyToAllowFrom ? [g.noDenyToAllowFrom] : [],
        ),
      ),
    ];
    const denyToAllowFrom =
      judged?.report && ranges.length > 0
        ? await this.reports.denyToAllowFrom(report.name, judged, ranges)
        : new Map<string, number>();
    const readiness = readinessOf(held.state, judged, { denyToAllowFrom });
    return { ...report, readiness, reportEtag: reportEtagOf(report, readiness) };
  }
}
