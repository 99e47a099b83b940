import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { StatusError } from '@rollout/contracts';
import type { FastifyReply } from 'fastify';
import { Config, GATEWAY_CONFIG } from '../config';
import type { AuthenticatedRequest } from './auth.decorators';
import { TokenBuckets } from './token-bucket';

/** Runs after AuthGuard: each principal gets its own token bucket (429 with Retry-After). */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly buckets: TokenBuckets;

  constructor(@Inject(GATEWAY_CONFIG) config: Config) {
    this.buckets = new TokenBuckets(config.RATE_LIMIT_PER_SECOND, config.RATE_LIMIT_BURST);
  }

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
    if (!principal) return true; // public routes
    const waitSeconds = this.buckets.take(principal.name);
    if (waitSeconds === 0) return true;
    void context
      .switchToHttp()
      .getResponse<FastifyReply>()
      .header('Retry-After', String(waitSeconds));
    throw StatusError.withReason(
      'RESOURCE_EXHAUSTED',
      'Too many requests; retry later.',
      'RATE_LIMITED',
      {
        retryAfterSeconds: String(waitSeconds),
      },
    );
  }
}
