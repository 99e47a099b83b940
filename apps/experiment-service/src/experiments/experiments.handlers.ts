import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ApproveCommitRequest,
  CommitRequest,
  ProposeCommitRequest,
  CreateExperimentRequest,
  DeleteRequest,
  EXPERIMENT_SUBJECTS as S,
  GetRequest,
  ListRequest,
  PreviewRequest,
  UpdateExperimentRequest,
} from '@rollout/contracts';
import { ExperimentCommands } from './experiment-commands.application';
import { ExperimentQueries } from './experiment-queries.application';

@Controller()
export class ExperimentHandlers {
  constructor(
    private readonly commands: ExperimentCommands,
    private readonly queries: ExperimentQueries,
  ) {}

  @MessagePattern(S.createExperiment) createExperiment(@Payload() r: CreateExperimentRequest) {
    return this.commands.createExperiment(r);
  }
  @MessagePattern(S.getExperiment) getExperiment(@Payload() r: GetRequest) {
    return this.queries.getExperiment(r);
  }
  @MessagePattern(S.listExperiments) listExperiments(@Payload() r: ListRequest) {
    return this.queries.listExperiments(r);
  }
  @MessagePattern(S.updateExperiment) updateExperiment(@Payload() r: UpdateExperimentRequest) {
    return this.commands.updateExperiment(r);
  }
  @MessagePattern(S.deleteExperiment) deleteExperiment(@Payload() r: DeleteRequest) {
    return this.commands.deleteExperiment(r);
  }
  @MessagePattern(S.startPreview) startPreview(@Payload() r: PreviewRequest) {
    return this.commands.startPreview(r);
  }
  @MessagePattern(S.stopPreview) stopPreview(@Payload() r: PreviewRequest) {
    return this.commands.stopPreview(r);
  }
  @MessagePattern(S.commit) commit(@Payload() r: CommitRequest) {
    return this.commands.commit(r);
  }
  @MessagePattern(S.proposeCommit) proposeCommit(@Payload() r: ProposeCommitRequest) {
    return this.commands.proposeCommit(r);
  }
  @MessagePattern(S.approveCommit) approveCommit(@Payload() r: ApproveCommitRequest) {
    return this.commands.approveCommit(r);
  }
  @MessagePattern(S.experimentEvents) experimentEvents(@Payload() r: GetRequest) {
    return this.queries.experimentEvents(r);
  }
}
