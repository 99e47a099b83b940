import { DynamicModule, Module } from '@nestjs/common';
import { PREVIEW_V1, SYSTEM_V1, TRAFFIC_V1, busNeedsOf } from '@rollout/contracts';
import { TRAFFIC_V2ALPHA } from '@rollout/contracts-alpha';
import { actorSignerOf, serviceModule } from '@rollout/platform/service-kit';
import { AUTO_STOP_ASSERTION_TTL_MS } from './auto-stop/auto-stop.job';
import { AutoStopModule } from './auto-stop/auto-stop.module';
import { BacktestsModule } from './backtests/backtests.module';
import { Config, EVALUATOR_CONFIG } from './config';
import { DeadLettersModule } from './dead-letters/dead-letters.module';
import { CreatePreviewStore1765000000000 } from './migrations/1765000000000-preview-store';
import { PreviewFlows1766650000000 } from './migrations/1766650000000-preview-flows';
import { PreviewInsight1767000000000 } from './migrations/1767000000000-preview-insight';
import { PreviewCompleteness1767100000000 } from './migrations/1767100000000-preview-completeness';
import { PreviewDisagreements1767200000000 } from './migrations/1767200000000-preview-disagreements';
import { PreviewBacktests1767300000000 } from './migrations/1767300000000-preview-backtests';
import { PreviewCohorts1767400000000 } from './migrations/1767400000000-preview-cohorts';
import { DeadLetters1767500000000 } from './migrations/1767500000000-dead-letters';
import { PreviewApplied1767600000000 } from './migrations/1767600000000-preview-applied';
import { PreviewOutcomes1767700000000 } from './migrations/1767700000000-preview-outcomes';
import { PreviewOutcomeFlows1767800000000 } from './migrations/1767800000000-preview-outcome-flows';
import { ReportModule } from './report/report.module';
import { PreviewStateModule } from './state/preview-state.module';
import { PreviewStateService } from './state/preview-state.service';
import { TrafficModule } from './traffic/traffic.module';

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
      actorSigner: actorSignerOf(config.BUS_SIGNING_KEY, AUTO_STOP_ASSERTION_TTL_MS),
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
          PreviewOutcomes1767700000000,
          PreviewOutcomeFlows1767800000000,
        ],
      },
      readiness: [PreviewStateService],
      imports: [
        PreviewStateModule,
        TrafficModule,
        ReportModule,
        BacktestsModule,
        DeadLettersModule,
        AutoStopModule,
      ],
    });
  }
}
