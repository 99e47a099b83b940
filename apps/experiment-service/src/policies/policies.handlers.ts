import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CreatePolicyRequest,
  DeleteRequest,
  EXPERIMENT_SUBJECTS as S,
  GetRequest,
  ListRequest,
  UpdatePolicyRequest,
} from '@rollout/contracts';
import { PolicyCommands } from './policy-commands.application';
import { PolicyQueries } from './policy-queries.application';

@Controller()
export class PolicyHandlers {
  constructor(
    private readonly commands: PolicyCommands,
    private readonly queries: PolicyQueries,
  ) {}

  @MessagePattern(S.createPolicy) createPolicy(@Payload() r: CreatePolicyRequest) {
    return this.commands.createPolicy(r);
  }
  @MessagePattern(S.getPolicy) getPolicy(@Payload() r: GetRequest) {
    return this.queries.getPolicy(r);
  }
  @MessagePattern(S.listPolicies) listPolicies(@Payload() r: ListRequest) {
    return this.queries.listPolicies(r);
  }
  @MessagePattern(S.updatePolicy) updatePolicy(@Payload() r: UpdatePolicyRequest) {
    return this.commands.updatePolicy(r);
  }
  @MessagePattern(S.deletePolicy) deletePolicy(@Payload() r: DeleteRequest) {
    return this.commands.deletePolicy(r);
  }
  @MessagePattern(S.policyEvents) policyEvents(@Payload() r: GetRequest) {
    return this.queries.policyEvents(r);
  }
}
