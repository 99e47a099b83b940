import { Module } from '@nestjs/common';
import { BackendModule } from '../http/backend.module';
import { LeasesClient } from './leases.client';
import { LeasesController } from './leases.controller';

@Module({
  imports: [BackendModule],
  controllers: [LeasesController],
  providers: [LeasesClient],
})
export class LeasesModule {}
