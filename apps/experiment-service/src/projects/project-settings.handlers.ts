import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  EXPERIMENT_SUBJECTS as S,
  GetRequest,
  UpdateProjectSettingsRequest,
} from '@rollout/contracts';
import { ProjectSettingsRepository } from './project-settings.repository';

/** experiment.v1 (1.6.0) request/reply: a project's settings. */
@Controller()
export class ProjectSettingsHandlers {
  constructor(private readonly settings: ProjectSettingsRepository) {}

  @MessagePattern(S.getProjectSettings) get(@Payload() r: GetRequest) {
    return this.settings.get(r);
  }
  @MessagePattern(S.updateProjectSettings) update(@Payload() r: UpdateProjectSettingsRequest) {
    return this.settings.update(r);
  }
}
