import { Module } from '@nestjs/common';
import { BackendModule } from '../http/backend.module';
import { InspectionRulesClient } from './inspection-rules.client';
import { InspectionRulesController } from './inspection-rules.controller';

@Module({
  imports: [BackendModule],
  controllers: [InspectionRulesController],
  providers: [InspectionRulesClient],
})
export class InspectionRulesModule {}
