import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CreateInspectionRuleRequest,
  EvaluateInspectionRulesRequest,
  EvaluateInspectionRulesResponse,
  INSPECTION_RULES_SUBJECTS,
  ImportInspectionRulesRequest,
  ImportInspectionRulesResponse,
  InspectionRule,
  ListInspectionRulesRequest,
  ListInspectionRulesResponse,
  PatchInspectionRuleRequest,
} from '@rollout/contracts';
import { RulesService } from './rules.service';

/** The rules API over NATS request/reply (the gateway's backend). */
@Controller()
export class RulesController {
  constructor(private readonly rules: RulesService) {}

  @MessagePattern(INSPECTION_RULES_SUBJECTS.create)
  create(@Payload() request: CreateInspectionRuleRequest): Promise<InspectionRule> {
    return this.rules.create(request);
  }

  @MessagePattern(INSPECTION_RULES_SUBJECTS.import)
  async import(@Payload() request: ImportInspectionRulesRequest): Promise<ImportInspectionRulesResponse> {
    return { inspection_rules: await this.rules.import(request) };
  }

  @MessagePattern(INSPECTION_RULES_SUBJECTS.get)
  get(@Payload() request: { uuid: string }): Promise<InspectionRule> {
    return this.rules.get(String(request.uuid));
  }

  @MessagePattern(INSPECTION_RULES_SUBJECTS.list)
  async list(@Payload() request: ListInspectionRulesRequest): Promise<ListInspectionRulesResponse> {
    return { inspection_rules: await this.rules.list(request ?? {}) };
  }

  @MessagePattern(INSPECTION_RULES_SUBJECTS.patch)
  patch(@Payload() request: PatchInspectionRuleRequest): Promise<InspectionRule> {
    return this.rules.patch(String(request.uuid), request.patch);
  }

  @MessagePattern(INSPECTION_RULES_SUBJECTS.delete)
  async delete(@Payload() request: { uuid: string }): Promise<Record<string, never>> {
    await this.rules.delete(String(request.uuid));
    return {};
  }

  @MessagePattern(INSPECTION_RULES_SUBJECTS.deleteAll)
  async deleteAll(): Promise<Record<string, never>> {
    await this.rules.deleteAll();
    return {};
  }

  @MessagePattern(INSPECTION_RULES_SUBJECTS.evaluate)
  evaluate(@Payload() request: EvaluateInspectionRulesRequest): Promise<EvaluateInspectionRulesResponse> {
    const { phase = 'main', ...data } = request;
    return this.rules.evaluate(phase, data);
  }
}
