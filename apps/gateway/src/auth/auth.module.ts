import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ExperimentsModule } from '../experiments/experiments.module';
import { AuthGuard } from './auth.guard';
import { Authenticator } from './authenticator';
import { PrincipalController } from './principal.controller';
import { ProjectsController } from './projects.controller';
import { RateLimitGuard } from './rate-limit.guard';

/** Authentication and rate limits on every route, and what the caller may see (principal, projects). */
@Module({
  imports: [ExperimentsModule],
  controllers: [PrincipalController, ProjectsController],
  providers: [
    Authenticator,
    // Order matters: authenticate, then rate-limit per principal.
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
  ],
})
export class AuthModule {}
