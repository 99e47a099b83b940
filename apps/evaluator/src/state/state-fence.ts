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

const RETRY_AFTER_SECONDS = 1;

/**
 * Read your own writes: a request with `State-After` waits until the snapshot holds that log
 * position, then is UNAVAILABLE with a retry hint, never a NOT_FOUND for something that exists.
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
