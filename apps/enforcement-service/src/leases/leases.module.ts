import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { OnEndModule } from '../on-end/on-end.module';
import { BlazarHooks } from './blazar-hooks.application';
import { LeaseCommands } from './lease-commands.application';
import { LeaseQueries } from './lease-queries.application';
import { LeaseSweeper } from './lease-sweeper.job';
import { LeasesHandlers } from './leases.handlers';

@Module({
  imports: [LedgerModule, OnEndModule],
  controllers: [LeasesHandlers],
  providers: [LeaseCommands, LeaseQueries, BlazarHooks, LeaseSweeper],
})
export class LeasesModule {}
