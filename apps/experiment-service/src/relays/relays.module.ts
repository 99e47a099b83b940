import { Module } from '@nestjs/common';
import { EventRelays } from './event-relays.job';

@Module({ providers: [EventRelays], exports: [EventRelays] })
export class RelaysModule {}
