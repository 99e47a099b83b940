import { Module } from '@nestjs/common';
import { BackendClient } from './backend-client';

/** The one NATS client of the backend services every feature's client calls through. */
@Module({
  providers: [BackendClient],
  exports: [BackendClient],
})
export class BackendModule {}
