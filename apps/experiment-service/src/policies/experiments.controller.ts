import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CommitRequest,
  CreateExperimentRequest,
  CreatePolicyRequest,
  DeleteRequest,
  EXPERIMENT_SUBJECTS as S,
  GetRequest,
  ListRequest,
  PreviewRequest,
  UpdateExperimentRequest,
  UpdatePolicyRequest,
} from '@rollout/contracts';
import { ExperimentApplication } from './experiment-application';

/** experiment.v1 request/reply: one handler per subject, each a call into the application. */
@Controller()
export class ExperimentsController {
  constructor(private readonly app: ExperimentApplication) {}

  @MessagePattern(S.createPolicy) createPolicy(@Payload() r: CreatePolicyRequest) { return this.app.createPolicy(r); }
  @MessagePattern(S.getPolicy) getPolicy(@Payload() r: GetRequest) { return this.app.getPolicy(r); }
  @MessagePattern(S.listPolicies) listPolicies(@Payload() r: ListRequest) { return this.app.listPolicies(r); }
  @MessagePattern(S.updatePolicy) updatePolicy(@Payload() r: UpdatePolicyRequest) { return this.app.updatePolicy(r); }
  @MessagePattern(S.deletePolicy) deletePolicy(@Payload() r: DeleteRequest) { return this.app.deletePolicy(r); }
  @MessagePattern(S.policyEvents) policyEvents(@Payload() r: GetRequest) { return this.app.policyEvents(r); }
  @MessagePattern(S.createExperiment) createExperiment(@Payload() r: CreateExperimentRequest) { return this.app.createExperiment(r); }
  @MessagePattern(S.getExperiment) getExperiment(@Payload() r: GetRequest) { return this.app.getExperiment(r); }
  @MessagePattern(S.listExperiments) listExperiments(@Payload() r: ListRequest) { return this.app.listExperiments(r); }
  @MessagePattern(S.updateExperiment) updateExperiment(@Payload() r: UpdateExperimentRequest) { return this.app.updateExperiment(r); }
  @MessagePattern(S.deleteExperiment) deleteExperiment(@Payload() r: DeleteRequest) { return this.app.deleteExperiment(r); }
  @MessagePattern(S.startPreview) startPreview(@Payload() r: PreviewRequest) { return this.app.startPreview(r); }
  @MessagePattern(S.stopPreview) stopPreview(@Payload() r: PreviewRequest) { return this.app.stopPreview(r); }
  @MessagePattern(S.commit) commit(@Payload() r: CommitRequest) { return this.app.commit(r); }
  @MessagePattern(S.experimentEvents) experimentEvents(@Payload() r: GetRequest) { return this.app.experimentEvents(r); }
  @MessagePattern(S.getOperation) getOperation(@Payload() r: GetRequest) { return this.app.getOperation(r); }
}
