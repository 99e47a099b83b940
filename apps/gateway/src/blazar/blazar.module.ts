import { Module } from '@nestjs/common';
import { BackendModule } from '../http/backend.module';
import { BlazarTokenGuard } from './blazar-token.guard';
import { BlazarClient } from './blazar.client';
import { BlazarController } from './blazar.controller';

@Module({
  imports: [BackendModule],
  controllers: [BlazarController],
  providers: [BlazarClient, BlazarTokenGuard],
})
export class BlazarModule {}
