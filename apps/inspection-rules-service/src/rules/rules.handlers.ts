import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, NatsContext, Payload } from '@nestjs/microservices';
import {
  CreateInspectionRuleRequest,
  DeleteAllInspectionRulesRequest,
  DeleteInspectionRuleRequest,
  EvaluateInspectionRulesRequest,
  EvaluateInspectionRulesResponse,
  INSPECTION_RULES_SUBJECTS,
  ImportInspectionRulesRequest,
  ImportInspectionRulesResponse,
  InspectionRule,
  ListInspectionRulesRequest,
  ListInspectionRulesResponse,
  PatchInspectionRuleRequest,
  RuleChangeActor,
  StatusError,
} from '@rollout/contracts';
import { REQUEST_ID_HEADER, requestIdFrom } from '@rollout/platform/logging';
import type { RuleChangeContext } from './rules.repository';
import { RuleCommands } from './rule-commands.application';
import { RuleQueries } from './rule-queries.application';

function changeContext(request: RuleChangeActor | undefined, ctx: NatsContext): RuleChangeContext {
  const actor = request?.actor;
  if (
    actor !== undefined &&
    (typeof actor !== 'string' ||
      actor.length === 0 ||
      actor.length > 255 ||
      actor.includes('\u0000'))
  ) {
    throw StatusError.invalidArgument('actor must be a name of 1 to 255 characters.', [
      { field: 'actor', description: 'invalid actor' },
    ]);
  }
  const header = ctx.getHeaders()?.get(REQUEST_ID_HEADER);
  // A caller that does not say who it is (an older client) is recorded as such.
  return { actor: actor ?? 'unknown', ...(header ? { requestId: requestIdFrom(header) } : {}) };
}

@Controller()
export class RulesHandlers {
  constructor(
    private readonly commands: RuleCommands,
    private readonly queries: RuleQueries,
  ) {}

  @MessagePattern(INSPECTION_RULES_SUBJECTS.create)
  create(
    @Payload() request: CreateInspectionRuleRequest,
    @Ctx() ctx: NatsContext,
  ): Promise<InspectionRule> {
    const change = changeContext(request, ctx);
    const { actor: _actor, ...rule } = request;
    return this.commands.create(rule, change);
  }

  @MessagePattern(INSPECTION_RULES_SUBJECTS.import)
  async import(
    @Payload() request: ImportInspectionRulesRequest,
    @Ctx() ctx: NatsContext,
  ): Promise<ImportInspectionRulesResponse> {
    return { inspection_rules: await this.commands.import(request, changeContext(request, ctx)) };
  }

  @MessagePattern(INSPECTION_RULES_SUBJECTS.get)
  get(@Payload() request: { uuid: string }): Promise<InspectionRule> {
    return this.queries.get(String(request.uuid));
  }

  @MessagePattern(INSPECTION_RULES_SUBJECTS.list)
  async list(@Payload() request: ListInspectionRulesRequest): Promise<ListInspectionRulesResponse> {
    return { inspection_rules: await this.queries.list(request ?? {}) };
  }

  @MessagePattern(INSPECTION_RULES_SUBJECTS.patch)
  patch(
    @Payload() request: PatchInspectionRuleRequest,
    @Ctx() ctx: NatsContext,
  ): Promise<InspectionRule> {
    return this.commands.patch(String(request.uuid), request.patch, changeContext(request, ctx));
  }

  @MessagePattern(INSPECTION_RULES_SUBJECTS.delete)
  async delete(
    @Payload() request: DeleteInspectionRuleRequest,
    @Ctx() ctx: NatsContext,
  ): Promise<Record<string, never>> {
    await this.commands.delete(String(request.uuid), changeContext(request, ctx));
    return {};
  }

  @MessagePattern(INSPECTION_RULES_SUBJECTS.deleteAll)
  async deleteAll(
    @Payload() request: DeleteAllInspectionRulesRequest | undefined,
    @Ctx() ctx: NatsContext,
  ): Promise<Record<string, never>> {
    await this.commands.deleteAll(changeContext(request, ctx));
    return {};
  }

  @MessagePattern(INSPECTION_RULES_SUBJECTS.evaluate)
  evaluate(
    @Payload() request: EvaluateInspectionRulesRequest,
  ): Promise<EvaluateInspectionRulesResponse> {
    const { phase = 'main', ...data } = request;
    return this.queries.evaluate(phase, data);
  }
}
