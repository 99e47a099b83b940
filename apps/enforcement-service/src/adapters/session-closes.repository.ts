import { Injectable } from '@nestjs/common';
import { DeliveryQueue, poolOf } from '@rollout/platform/postgres';
import { DataSource } from 'typeorm';

/** A CloseSession not acknowledged yet. */
export interface PendingClose {
  adapter: string;
  session_id: string;
  handler: string;
}

/**
 * How long a replica's claim on a close lasts: longer than a claimed batch takes (each
 * CloseSession waits at most CLOSE_TIMEOUT_MS), so no close is sent twice at once.
 */
const CLAIM_MS = 60_000;

/**
 * `adapter_session_closes`: CloseSession calls to try again, a delivery queue shared by
 * replicas; a close is kept until the adapter acknowledges it (never abandoned).
 */
@Injectable()
export class SessionClosesRepository extends DeliveryQueue<PendingClose> {
  constructor(dataSource: DataSource) {
    super(
      poolOf(dataSource),
      {
        name: 'adapter_session_closes',
        key: ['adapter', 'session_id'],
        payload: ['handler'],
        abandons: false,
      },
      CLAIM_MS,
    );
  }
}
