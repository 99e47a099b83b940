import { Module } from '@nestjs/common';
import { AggregatesModule } from '../aggregates/aggregates.module';
import { StatePositionHandlers } from './state-position.handlers';

@Module({ imports: [AggregatesModule], controllers: [StatePositionHandlers] })
export class StateModule {}
