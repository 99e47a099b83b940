import { Module } from '@nestjs/common';
import { Ledger } from './ledger.repository';

@Module({ providers: [Ledger], exports: [Ledger] })
export class LedgerModule {}
