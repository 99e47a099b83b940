import { definePackage } from '../../packages';

const subject = (method: string) => `adapter.v1.{adapter}.${method}`;

/**
 * `adapter.v1`: out-of-process policy adapters (Mixer's model), served by each adapter on
 * `adapter.v1.{adapter}.…` with queue group `{adapter}`. Plain JSON request/reply (not the NestJS
 * packet); see index.ts.
 */
export const ADAPTER_V1_PACKAGE = definePackage({
  name: 'adapter.v1',
  version: '1.0.0',
  stability: 'stable',
  requests: [
    'InfoRequest',
    'ValidateRequest',
    'CreateSessionRequest',
    'CloseSessionRequest',
    'HandleCheckRequest',
    'HandleQuotaRequest',
    'HandleReportRequest',
  ],
  replies: [
    'AdapterInfo',
    'ValidateResponse',
    'CreateSessionResponse',
    'CloseSessionResponse',
    'CheckResult',
    'QuotaResult',
    'HandleReportResponse',
  ],
  events: [],
  resources: [],
  requestReply: [
    { subject: subject('info'), request: 'InfoRequest', reply: 'AdapterInfo' },
    { subject: subject('validate'), request: 'ValidateRequest', reply: 'ValidateResponse' },
    { subject: subject('createSession'), request: 'CreateSessionRequest', reply: 'CreateSessionResponse' },
    { subject: subject('closeSession'), request: 'CloseSessionRequest', reply: 'CloseSessionResponse' },
    { subject: subject('handleCheck'), request: 'HandleCheckRequest', reply: 'CheckResult' },
    { subject: subject('handleQuota'), request: 'HandleQuotaRequest', reply: 'QuotaResult' },
    { subject: subject('handleReport'), request: 'HandleReportRequest', reply: 'HandleReportResponse' },
  ],
});
