import { definePackage } from '../../packages';
import {
  INSPECTION_RESULTS_SUBJECT,
  INSPECTION_RULES_SUBJECTS as S,
  type InspectionPhase,
  inspectionEventSubject,
} from './index';

// Requests and replies the service handles that have no name of their own in index.ts.
export interface InspectionRuleRef {
  uuid: string;
}
export type Empty = Record<string, never>;

const service = 'inspection-rules-service';

/** `inspection.v1`: inspection rules (Ironic-compatible) and inspection events. */
export const INSPECTION_V1_PACKAGE = definePackage({
  name: 'inspection.v1',
  version: '1.2.0',
  stability: 'stable',
  requests: [
    'CreateInspectionRuleRequest',
    'InspectionRuleRef',
    'ListInspectionRulesRequest',
    'PatchInspectionRuleRequest',
    'DeleteInspectionRuleRequest',
    'DeleteAllInspectionRulesRequest',
    'ImportInspectionRulesRequest',
    'EvaluateInspectionRulesRequest',
  ],
  replies: [
    'ListInspectionRulesResponse',
    'ImportInspectionRulesResponse',
    'EvaluateInspectionRulesResponse',
  ],
  events: ['InspectionEvent', 'InspectionResult'],
  resources: ['InspectionRule', 'Empty'],
  requestReply: [
    { subject: S.create, service, request: 'CreateInspectionRuleRequest', reply: 'InspectionRule' },
    { subject: S.get, service, request: 'InspectionRuleRef', reply: 'InspectionRule' },
    {
      subject: S.list,
      service,
      request: 'ListInspectionRulesRequest',
      reply: 'ListInspectionRulesResponse',
    },
    { subject: S.patch, service, request: 'PatchInspectionRuleRequest', reply: 'InspectionRule' },
    { subject: S.delete, service, request: 'DeleteInspectionRuleRequest', reply: 'Empty' },
    { subject: S.deleteAll, service, request: 'DeleteAllInspectionRulesRequest', reply: 'Empty' },
    {
      subject: S.evaluate,
      service,
      request: 'EvaluateInspectionRulesRequest',
      reply: 'EvaluateInspectionRulesResponse',
    },
    {
      subject: S.import,
      service,
      request: 'ImportInspectionRulesRequest',
      reply: 'ImportInspectionRulesResponse',
    },
  ],
  streams: [
    // Stream names as the inspection-rules-service declares them (INSPECTION_STREAM, INSPECTION_RESULTS_STREAM).
    {
      subject: inspectionEventSubject('{phase}' as InspectionPhase),
      stream: 'INSPECTION',
      direction: 'in',
      service,
      message: 'InspectionEvent',
    },
    {
      subject: INSPECTION_RESULTS_SUBJECT,
      stream: 'INSPECTION_RESULTS',
      direction: 'out',
      service,
      message: 'InspectionResult',
    },
  ],
});
