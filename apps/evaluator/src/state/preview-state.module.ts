import { Global, Module } from '@nestjs/common';
import { PreviewAppliedRepository } from './preview-applied.repository';
import { PreviewStateService } from './preview-state.service';
import { StateFence } from './state-fence';

/** The snapshot is also a readiness check, so HealthModule must see it: a global module. */
@Global()
@Module({
  providers: [PreviewStateService, PreviewAppliedRepository, StateFence],
  exports: [PreviewStateService, PreviewAppliedRepository, StateFence],
})
export class PreviewStateModule {}
