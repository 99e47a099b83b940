import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { EXPERIMENT_SUBJECTS as S, StatePosition } from '@rollout/contracts';
import { Aggregates } from '../aggregates/aggregates';

/** Lets a read answered from EXPERIMENT_STATE wait for every change answered before it (docs/api.md, "Read your own writes"). */
@Controller()
export class StatePositionHandlers {
  constructor(private readonly aggregates: Aggregates) {}

  @MessagePattern(S.statePosition) statePosition(): Promise<StatePosition> {
    return this.aggregates.store.head();
  }
}
