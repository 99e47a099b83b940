import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { EXPERIMENT_SUBJECTS as S, GetRequest } from '@rollout/contracts';
import { OperationQueries } from './operation-queries.application';

@Controller()
export class OperationHandlers {
  constructor(private readonly queries: OperationQueries) {}

  @MessagePattern(S.getOperation) getOperation(@Payload() r: GetRequest) {
    return this.queries.getOperation(r);
  }
}
