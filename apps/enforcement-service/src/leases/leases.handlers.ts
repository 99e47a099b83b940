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
import { REQUEST_ID_HEADER, requestIdFrom } from '@rollout/logging';
import { LeasesApplication } from './leases.application';

/** The caller's request id (NATS header), for the filter context and the decision record. */
const requestId = (ctx: NatsContext) => requestIdFrom(ctx.getHeaders()?.get(REQUEST_ID_HEADER));

/** enforcement.v1 request/reply: one handler per subject, each a call into the application. */
@Controller()
export class LeasesController {
  constructor(private readonly app: LeasesApplication) {}

  @MessagePattern(S.createLease) create(@Payload() r: CreateLeaseRequest, @Ctx() c: NatsContext) { return this.app.create(r, requestId(c)); }
  @MessagePattern(S.getLease) get(@Payload() r: GetLeaseRequest) { return this.app.get(r); }
  @MessagePattern(S.listLeases) list(@Payload() r: ListLeasesRequest) { return this.app.list(r); }
  @MessagePattern(S.updateLease) update(@Payload() r: UpdateLeaseRequest, @Ctx() c: NatsContext) { return this.app.update(r, requestId(c)); }
  @MessagePattern(S.endLease) end(@Payload() r: EndLeaseRequest, @Ctx() c: NatsContext) { return this.app.end(r, requestId(c)); }
  @MessagePattern(S.deleteLease) delete(@Payload() r: DeleteLeaseRequest, @Ctx() c: NatsContext) { return this.app.delete(r, requestId(c)); }
  @MessagePattern(S.listDecisions) decisions(@Payload() r: ListDecisionsRequest) { return this.app.decisions(r); }
  @MessagePattern(S.blazarCheckCreate) blazarCheckCreate(@Payload() r: unknown, @Ctx() c: NatsContext) { return this.app.blazarCheckCreate(r, requestId(c)); }
  @MessagePattern(S.blazarCheckUpdate) blazarCheckUpdate(@Payload() r: unknown, @Ctx() c: NatsContext) { return this.app.blazarCheckUpdate(r, requestId(c)); }
  @MessagePattern(S.blazarOnEnd) blazarOnEnd(@Payload() r: unknown, @Ctx() c: NatsContext) { return this.app.blazarOnEnd(r, requestId(c)); }
}
