import { Injectable } from '@nestjs/common';
import { PreviewReport } from '@rollout/contracts';
import { judgedConfiguration, readinessOf, reportEtagOf } from '@rollout/preview-domain';
import { DataSource } from 'typeorm';
import { PreviewStateService } from '../state/preview-state.service';

/**
 * Adds an experiment's readiness gates and the reportEtag to its finished report
 * (docs/readiness-gates.md). The gates come from the experiment as the evaluator holds it
 * (EXPERIMENT_STATE); only `noDenyToAllowFrom` needs a read of its own, over the judged
 * configuration's flows.
 */
@Injectable()
export class ReportReadiness {
  constructor(
    private readonly dataSource: DataSource,
    private readonly snapshot: PreviewStateService,
  ) {}

  async complete(report: PreviewReport): Promise<PreviewReport> {
    const held = this.snapshot.state.experimentOf(report.name);
    if (!held) return { ...report, reportEtag: reportEtagOf(report, undefined) };
    const judged = judgedConfiguration(held, report.configurations);
    const ranges = [...new Set((held.state.readinessGates ?? []).flatMap((g) => (g.noDenyToAllowFrom ? [g.noDenyToAllowFrom] : [])))];
    const denyToAllowFrom = new Map<string, number>();
    if (judged?.report && ranges.length > 0) {
      const rows: { range: string; count: string }[] = await this.dataSource.query(
        `SELECT r.range, COALESCE(sum(f.count), 0) AS count
         FROM unnest($3::text[]) AS r(range)
         LEFT JOIN (preview_flows f
           JOIN preview_configurations c ON c.id = f.configuration_id AND c.experiment = $1 AND c.live_policy_etag = $2
           JOIN preview_versions v ON v.id = c.version_id AND v.experiment_etag = $4)
           ON f.live_action = 'deny' AND f.src_ip <<= r.range::inet
         GROUP BY r.range`,
        [report.name, judged.livePolicyEtag, ranges, judged.experimentEtag],
      );
      for (const row of rows) denyToAllowFrom.set(row.range, Number(row.count));
    }
    const readiness = readinessOf(held.state, judged, { denyToAllowFrom });
    return { ...report, readiness, reportEtag: reportEtagOf(report, readiness) };
  }
}
