import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { OnEndOutbox } from './on-end-outbox.job';
import { OnEndOutboxRepository } from './on-end-outbox.repository';

@Module({
  imports: [LedgerModule],
  providers: [OnEndOutboxRepository, OnEndOutbox],
  exports: [OnEndOutbox],
})
export class OnEndModule {}
