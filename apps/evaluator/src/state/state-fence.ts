import { Inject, Injectable } from '@nestjs/common';
import type { NatsContext } from '@nestjs/microservices';
import {
  STATE_AFTER_HEADER,
  StatusError,
  formatStatePosition,
  parseStatePosition,
} from '@rollout/contracts';
import { Config, EVALUATOR_CONFIG } from '../config';
import { PreviewStateService } from './preview-state.service';

/** What a read answered UNAVAILABLE tells its client to wait before trying again. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Read your own writes: a request carrying `State-After` (the experiment-service's log position
 * the gateway read before it) is answered only once the snapshot holds every change up to
 * there, so a backtest or a report asked right after a create finds what the create made. Past
 * EVALUATOR_STATE_WAIT_MS it is UNAVAILABLE with a retry hint, never a NOT_FOUND for something
 * that exists. A request without the header is answered from the snapshot as it stands.
 */
@Injectable()
export class StateFence {
  constructor(
    private readonly snapshot: PreviewStateService,
    @Inject(EVALUATOR_CONFIG) private readonly config: Config,
  ) {}

  async passed(context: NatsContext | undefined): Promise<void> {
    const header = context?.getHeaders()?.get(STATE_AFTER_HEADER);
    if (!header) return;
    const position = parseStatePosition(header);
    if (!position)
      throw StatusError.invalidArgument(
        `The ${STATE_AFTER_HEADER} header must be <txId>.<position> (got "${header.slice(0, 60)}").`,
        [{ field: STATE_AFTER_HEADER, description: 'two decimal numbers joined by a dot' }],
      );
    if (await this.snapshot.appliedThrough(position, this.config.EVALUATOR_STATE_WAIT_MS)) return;
    throw StatusError.withReason(
      'UNAVAILABLE',
      `The evaluator has not yet seen every change answered before this request (it holds the state up to ${formatStatePosition(this.snapshot.position)}, the request needs ${formatStatePosition(position)}); retry in ${RETRY_AFTER_SECONDS} s.`,
      'STATE_NOT_YET_APPLIED',
      {
        retryAfterSeconds: String(RETRY_AFTER_SECONDS),
        stateAfter: formatStatePosition(position),
        stateHeld: formatStatePosition(this.snapshot.position),
      },
    );
  }
}
