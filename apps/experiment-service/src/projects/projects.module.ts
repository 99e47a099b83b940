import { Module } from '@nestjs/common';
import { ProjectSettingsHandlers } from './project-settings.handlers';
import { ProjectSettingsRepository } from './project-settings.repository';

@Module({
  controllers: [ProjectSettingsHandlers],
  providers: [ProjectSettingsRepository],
  exports: [ProjectSettingsRepository],
})
export class ProjectsModule {}
