import { Module } from '@nestjs/common';
import { EventRelays } from './event-relays.job';

/** The relays of committed events to EXPERIMENT_EVENTS and EXPERIMENT_STATE. */
@Module({ providers: [EventRelays], exports: [EventRelays] })
export class RelaysModule {}
