import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, NatsContext, Payload } from '@nestjs/microservices';
import {
  CreateLeaseRequest,
  DeleteLeaseRequest,
  ENFORCEMENT_SUBJECTS as S,
  EndLeaseRequest,
  GetLeaseRequest,
  ListDecisionsRequest,
  ListLeasesRequest,
  UpdateLeaseRequest,
} from '@rollout/contracts';
import { REQUEST_ID_HEADER, requestIdFrom } from '@rollout/platform/logging';
import { BlazarHooks } from './blazar-hooks.application';
import { LeaseCommands } from './lease-commands.application';
import { LeaseQueries } from './lease-queries.application';

const requestId = (ctx: NatsContext) => requestIdFrom(ctx.getHeaders()?.get(REQUEST_ID_HEADER));

@Controller()
export class LeasesHandlers {
  constructor(
    private readonly commands: LeaseCommands,
    private readonly queries: LeaseQueries,
    private readonly blazar: BlazarHooks,
  ) {}

  @MessagePattern(S.createLease) create(@Payload() r: CreateLeaseRequest, @Ctx() c: NatsContext) {
    return this.commands.create(r, requestId(c));
  }
  @MessagePattern(S.getLease) get(@Payload() r: GetLeaseRequest) {
    return this.queries.get(r);
  }
  @MessagePattern(S.listLeases) list(@Payload() r: ListLeasesRequest) {
    return this.queries.list(r);
  }
  @MessagePattern(S.updateLease) update(@Payload() r: UpdateLeaseRequest, @Ctx() c: NatsContext) {
    return this.commands.update(r, requestId(c));
  }
  @MessagePattern(S.endLease) end(@Payload() r: EndLeaseRequest, @Ctx() c: NatsContext) {
    return this.commands.end(r, requestId(c));
  }
  @MessagePattern(S.deleteLease) delete(@Payload() r: DeleteLeaseRequest, @Ctx() c: NatsContext) {
    return this.commands.delete(r, requestId(c));
  }
  @MessagePattern(S.listDecisions) decisions(@Payload() r: ListDecisionsRequest) {
    return this.queries.decisions(r);
  }
  @MessagePattern(S.blazarCheckCreate) blazarCheckCreate(
    @Payload() r: unknown,
    @Ctx() c: NatsContext,
  ) {
    return this.blazar.checkCreate(r, requestId(c));
  }
  @MessagePattern(S.blazarCheckUpdate) blazarCheckUpdate(
    @Payload() r: unknown,
    @Ctx() c: NatsContext,
  ) {
    return this.blazar.checkUpdate(r, requestId(c));
  }
  @MessagePattern(S.blazarOnEnd) blazarOnEnd(@Payload() r: unknown, @Ctx() c: NatsContext) {
    return this.blazar.onEnd(r, requestId(c));
  }
}
