import { Module } from '@nestjs/common';
import { BackendModule } from '../http/backend.module';
import { ServicesClient } from './services.client';
import { ServicesController } from './services.controller';

@Module({
  imports: [BackendModule],
  controllers: [ServicesController],
  providers: [ServicesClient],
})
export class ServicesModule {}
