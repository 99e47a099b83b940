import { definePackage } from '../../packages';

const subject = (method: string) => `adapter.v1.{adapter}.${method}`;
// Adapters are third-party processes: the request and reply bodies are the messages themselves.
const envelope = 'plain';

/** `adapter.v1`: out-of-process policy adapters (Mixer's model); see index.ts. */
export const ADAPTER_V1_PACKAGE = definePackage({
  name: 'adapter.v1',
  version: '1.2.0',
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
    { subject: subject('info'), request: 'InfoRequest', reply: 'AdapterInfo', envelope },
    {
      subject: subject('validate'),
      request: 'ValidateRequest',
      reply: 'ValidateResponse',
      envelope,
    },
    {
      subject: subject('createSession'),
      request: 'CreateSessionRequest',
      reply: 'CreateSessionResponse',
      envelope,
    },
    {
      subject: subject('closeSession'),
      request: 'CloseSessionRequest',
      reply: 'CloseSessionResponse',
      envelope,
    },
    {
      subject: subject('handleCheck'),
      request: 'HandleCheckRequest',
      reply: 'CheckResult',
      envelope,
    },
    {
      subject: subject('handleQuota'),
      request: 'HandleQuotaRequest',
      reply: 'QuotaResult',
      envelope,
    },
    {
      subject: subject('handleReport'),
      request: 'HandleReportRequest',
      reply: 'HandleReportResponse',
      envelope,
    },
  ],
});
