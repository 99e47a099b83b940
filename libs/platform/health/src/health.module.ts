import {
  BeforeApplicationShutdown,
  Controller,
  DynamicModule,
  Get,
  HttpCode,
  Inject,
  Injectable,
  Module,
  Res,
  Type,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from './public-route';
import { ReadinessCheck, ReadinessReport, runReadinessChecks } from './readiness';

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

/** Off as soon as shutdown starts, so load balancers stop sending work. */
@Injectable()
export class DrainState implements BeforeApplicationShutdown {
  draining = false;

  beforeApplicationShutdown(): void {
    this.draining = true;
  }
}

@Public()
@ApiExcludeController()
@Controller()
export class HealthController {
  constructor(
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
    private readonly drain: DrainState,
  ) {}

  /** Dependencies are deliberately not checked here. */
  @Get('healthz')
  @HttpCode(200)
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready(@Res({ passthrough: true }) res: FastifyReply): Promise<ReadinessReport> {
    const report = await runReadinessChecks(this.checks, this.drain.draining);
    res.status(report.status === 'ok' ? 200 : 503);
    return report;
  }
}

@Module({})
export class HealthModule {
  static forRoot(checks: Type<ReadinessCheck>[]): DynamicModule {
    return {
      module: HealthModule,
      controllers: [HealthController],
      providers: [
        DrainState,
        {
          provide: READINESS_CHECKS,
          useFactory: (...instances: ReadinessCheck[]) => instances,
          inject: checks,
        },
      ],
    };
  }
}
