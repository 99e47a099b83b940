import { Global, Module } from '@nestjs/common';
import { PreviewAppliedRepository } from './preview-applied.repository';
import { PreviewStateService } from './preview-state.service';

/** The snapshot is also a readiness check, so HealthModule must see it: a global module. */
@Global()
@Module({
  providers: [PreviewStateService, PreviewAppliedRepository],
  exports: [PreviewStateService, PreviewAppliedRepository],
})
export class PreviewStateModule {}
