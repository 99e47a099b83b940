import { Injectable } from '@nestjs/common';
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
  JsonPatchOperation,
  ListInspectionRulesRequest,
  ListInspectionRulesResponse,
  PatchInspectionRuleRequest,
} from '@rollout/contracts';
import { BackendClient } from '../http/backend-client';

@Injectable()
export class InspectionRulesClient {
  constructor(private readonly backend: BackendClient) {}

  create(rule: Omit<CreateInspectionRuleRequest, 'actor'>, actor: string, requestId?: string) {
    return this.backend.call<InspectionRule>(
      INSPECTION_RULES_SUBJECTS.create,
      { ...rule, actor } satisfies CreateInspectionRuleRequest,
      requestId,
    );
  }

  import(request: Omit<ImportInspectionRulesRequest, 'actor'>, actor: string, requestId?: string) {
    return this.backend.call<ImportInspectionRulesResponse>(
      INSPECTION_RULES_SUBJECTS.import,
      { ...request, actor } satisfies ImportInspectionRulesRequest,
      requestId,
    );
  }

  get(uuid: string, requestId?: string) {
    return this.backend.call<InspectionRule>(INSPECTION_RULES_SUBJECTS.get, { uuid }, requestId);
  }

  list(request: ListInspectionRulesRequest, requestId?: string) {
    return this.backend.call<ListInspectionRulesResponse>(
      INSPECTION_RULES_SUBJECTS.list,
      request,
      requestId,
    );
  }

  patch(uuid: string, patch: JsonPatchOperation[], actor: string, requestId?: string) {
    return this.backend.call<InspectionRule>(
      INSPECTION_RULES_SUBJECTS.patch,
      { uuid, patch, actor } satisfies PatchInspectionRuleRequest,
      requestId,
    );
  }

  async delete(uuid: string, actor: string, requestId?: string): Promise<void> {
    await this.backend.call(
      INSPECTION_RULES_SUBJECTS.delete,
      { uuid, actor } satisfies DeleteInspectionRuleRequest,
      requestId,
    );
  }

  async deleteAll(actor: string, requestId?: string): Promise<void> {
    await this.backend.call(
      INSPECTION_RULES_SUBJECTS.deleteAll,
      { actor } satisfies DeleteAllInspectionRulesRequest,
      requestId,
    );
  }

  evaluate(request: EvaluateInspectionRulesRequest, requestId?: string) {
    return this.backend.call<EvaluateInspectionRulesResponse>(
      INSPECTION_RULES_SUBJECTS.evaluate,
      request,
      requestId,
    );
  }
}
