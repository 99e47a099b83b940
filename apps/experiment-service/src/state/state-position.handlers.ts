import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { EXPERIMENT_SUBJECTS as S, StatePosition } from '@rollout/contracts';
import { Aggregates } from '../aggregates/aggregates';

/**
 * Where the event log stands: the gateway asks before a read that another service answers from
 * EXPERIMENT_STATE, so that the read waits for every change answered before it (docs/api.md,
 * "Read your own writes").
 */
@Controller()
export class StatePositionHandlers {
  constructor(private readonly aggregates: Aggregates) {}

  @MessagePattern(S.statePosition) statePosition(): Promise<StatePosition> {
    return this.aggregates.store.head();
  }
}
