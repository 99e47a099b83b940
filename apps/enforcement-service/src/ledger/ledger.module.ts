import { Module } from '@nestjs/common';
import { Ledger } from './ledger.repository';

/** The lease ledger: leases and their decisions, in the service's schema. */
@Module({ providers: [Ledger], exports: [Ledger] })
export class LedgerModule {}
