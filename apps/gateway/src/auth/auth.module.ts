import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthGuard } from './auth.guard';
import { Authenticator } from './authenticator';
import { PrincipalController } from './principal.controller';
import { RateLimitGuard } from './rate-limit.guard';

@Module({
  controllers: [PrincipalController],
  providers: [
    Authenticator,
    // Order matters: authenticate, then rate-limit per principal.
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
  ],
})
export class AuthModule {}
