import { Injectable } from '@nestjs/common';
import { DeliveryQueue, poolOf } from '@rollout/platform/postgres';
import { DataSource } from 'typeorm';
import type { DeliveryStore, Retry } from '../delivery-job';

export interface PendingClose {
  adapter: string;
  sessionId: string;
  handler: string;
  attempts: number;
}

interface CloseRow {
  adapter: string;
  session_id: string;
  handler: string;
}

/** Longer than a claimed batch takes (each close waits CLOSE_TIMEOUT_MS at most), so no close is sent twice at once. */
const CLAIM_MS = 60_000;

const keyOf = (close: PendingClose) => ({ adapter: close.adapter, session_id: close.sessionId });

@Injectable()
export class SessionClosesRepository implements DeliveryStore<PendingClose> {
  private readonly table: DeliveryQueue<CloseRow>;

  constructor(dataSource: DataSource) {
    this.table = new DeliveryQueue(
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

  async enqueue(close: PendingClose, retry: Retry, at: Date, now: Date): Promise<void> {
    await this.table.enqueue({ ...keyOf(close), handler: close.handler }, at, now, {
      attempts: retry.attempts,
      lastError: retry.lastError,
    });
  }

  async claimDue(now: Date, limit: number): Promise<PendingClose[]> {
    return (await this.table.claimDue(now, limit)).map((row) => ({
      adapter: row.adapter,
      sessionId: row.session_id,
      handler: row.handler,
      attempts: row.attempts,
    }));
  }

  done(close: PendingClose): Promise<void> {
    return this.table.done(keyOf(close));
  }

  retryAt(close: PendingClose, { attempts, lastError }: Retry, at: Date): Promise<void> {
    return this.table.retryAt(keyOf(close), { attempts, lastError }, at);
  }

  abandon(): Promise<void> {
    throw new Error('adapter_session_closes keeps every close until it is acknowledged');
  }
}
