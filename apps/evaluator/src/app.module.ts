import { DynamicModule, Global, Module } from '@nestjs/common';
import { PREVIEW_V1, SYSTEM_V1, TRAFFIC_V1 } from '@rollout/contracts';
import { TRAFFIC_V2ALPHA } from '@rollout/contracts-alpha';
import { busNeedsOf } from '@rollout/platform/nats';
import { actorSigningOf, serviceModule } from '@rollout/platform/service-kit';
import { AUTO_STOP_ASSERTION_TTL_MS, AutoStop } from './auto-stop/auto-stop';
import { RunCountsRepository } from './auto-stop/run-counts.repository';
import { BacktestHandlers } from './backtests/backtest.handlers';
import { Backtests } from './backtests/backtests.application';
import { BacktestsRepository } from './backtests/backtests.repository';
import { Config, EVALUATOR_CONFIG } from './config';
import { ChangedFlowsRepository } from './counting/changed-flows.repository';
import { ConfigurationTotalsRepository } from './counting/configuration-totals.repository';
import { ConfigurationsRepository } from './counting/configurations.repository';
import { DisagreementsRepository } from './counting/disagreements.repository';
import { PreviewCountsRepository } from './counting/preview-counts.repository';
import { CreatePreviewStore1765000000000 } from './migrations/1765000000000-preview-store';
import { PreviewFlows1766650000000 } from './migrations/1766650000000-preview-flows';
import { PreviewInsight1767000000000 } from './migrations/1767000000000-preview-insight';
import { PreviewCompleteness1767100000000 } from './migrations/1767100000000-preview-completeness';
import { PreviewDisagreements1767200000000 } from './migrations/1767200000000-preview-disagreements';
import { PreviewBacktests1767300000000 } from './migrations/1767300000000-preview-backtests';
import { PreviewCohorts1767400000000 } from './migrations/1767400000000-preview-cohorts';
import { DeadLetters1767500000000 } from './migrations/1767500000000-dead-letters';
import { PreviewApplied1767600000000 } from './migrations/1767600000000-preview-applied';
import { DeadLetterHandlers } from './dead-letters/dead-letters.handlers';
import { DeadLettersRepository } from './dead-letters/dead-letters.repository';
import { PreviewLogPublisher } from './preview-logs/preview-log.publisher';
import { FlowQueries } from './report/flow-queries.application';
import { FlowsRepository } from './report/flows.repository';
import { PreviewHandlers } from './report/preview.handlers';
import { ReportQueries } from './report/report-queries.application';
import { ReportRepository } from './report/report.repository';
import { PreviewRetention } from './retention/preview-retention';
import { RetentionRepository } from './retention/retention.repository';
import { PreviewAppliedRepository } from './state/preview-applied.repository';
import { PreviewStateService } from './state/preview-state.service';
import { TrafficConsumer } from './traffic/traffic.consumer';
import { TrafficLag } from './traffic/traffic-lag';

/** The snapshot is also a readiness check, so HealthModule must see it: a global module. */
@Global()
@Module({
  providers: [PreviewStateService, PreviewAppliedRepository],
  exports: [PreviewStateService, PreviewAppliedRepository],
})
class PreviewStateModule {}

@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return serviceModule({
      module: AppModule,
      service: 'evaluator',
      config,
      configToken: EVALUATOR_CONFIG,
      contracts: [SYSTEM_V1, TRAFFIC_V1, TRAFFIC_V2ALPHA, PREVIEW_V1],
      jetstream: busNeedsOf('evaluator'),
      // Its system key signs auto-stop's stopPreview (the only call it makes).
      actorSigning: actorSigningOf(config.BUS_SIGNING_KEY, AUTO_STOP_ASSERTION_TTL_MS),
      database: {
        migrations: [
          CreatePreviewStore1765000000000,
          PreviewFlows1766650000000,
          PreviewInsight1767000000000,
          PreviewCompleteness1767100000000,
          PreviewDisagreements1767200000000,
          PreviewBacktests1767300000000,
          PreviewCohorts1767400000000,
          DeadLetters1767500000000,
          PreviewApplied1767600000000,
        ],
      },
      readiness: [PreviewStateService],
      imports: [PreviewStateModule],
      controllers: [PreviewHandlers, BacktestHandlers, DeadLetterHandlers],
      providers: [
        PreviewCountsRepository,
        DeadLettersRepository,
        ConfigurationsRepository,
        ChangedFlowsRepository,
        DisagreementsRepository,
        ConfigurationTotalsRepository,
        PreviewLogPublisher,
        ReportQueries,
        ReportRepository,
        FlowQueries,
        FlowsRepository,
        PreviewRetention,
        RetentionRepository,
        TrafficConsumer,
        TrafficLag,
        AutoStop,
        RunCountsRepository,
        BacktestsRepository,
        Backtests,
      ],
    });
  }
}
