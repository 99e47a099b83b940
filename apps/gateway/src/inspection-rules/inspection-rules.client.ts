import { Injectable } from '@nestjs/common';
import {
  CreateInspectionRuleRequest,
  EvaluateInspectionRulesRequest,
  EvaluateInspectionRulesResponse,
  INSPECTION_RULES_SUBJECTS,
  ImportInspectionRulesRequest,
  ImportInspectionRulesResponse,
  InspectionRule,
  JsonPatchOperation,
  ListInspectionRulesRequest,
  ListInspectionRulesResponse,
} from '@rollout/contracts';
import { BackendClient } from '../http/backend-client';

/** The inspection-rules-service's API, over NATS. */
@Injectable()
export class InspectionRulesClient {
  constructor(private readonly backend: BackendClient) {}

  create(rule: CreateInspectionRuleRequest, requestId?: string) {
    return this.backend.call<InspectionRule>(INSPECTION_RULES_SUBJECTS.create, rule, requestId);
  }

  import(request: ImportInspectionRulesRequest, requestId?: string) {
    return this.backend.call<ImportInspectionRulesResponse>(INSPECTION_RULES_SUBJECTS.import, request, requestId);
  }

  get(uuid: string, requestId?: string) {
    return this.backend.call<InspectionRule>(INSPECTION_RULES_SUBJECTS.get, { uuid }, requestId);
  }

  list(request: ListInspectionRulesRequest, requestId?: string) {
    return this.backend.call<ListInspectionRulesResponse>(INSPECTION_RULES_SUBJECTS.list, request, requestId);
  }

  patch(uuid: string, patch: JsonPatchOperation[], requestId?: string) {
    return this.backend.call<InspectionRule>(INSPECTION_RULES_SUBJECTS.patch, { uuid, patch }, requestId);
  }

  async delete(uuid: string, requestId?: string): Promise<void> {
    await this.backend.call(INSPECTION_RULES_SUBJECTS.delete, { uuid }, requestId);
  }

  async deleteAll(requestId?: string): Promise<void> {
    await this.backend.call(INSPECTION_RULES_SUBJECTS.deleteAll, {}, requestId);
  }

  evaluate(request: EvaluateInspectionRulesRequest, requestId?: string) {
    return this.backend.call<EvaluateInspectionRulesResponse>(INSPECTION_RULES_SUBJECTS.evaluate, request, requestId);
  }
}
