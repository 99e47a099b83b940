import { definePackage } from '../../packages';
import { compactPolicyPreviewLogSubject } from './compact-log';
import {
  PREVIEW_LOGS_STREAM,
  PREVIEW_SUBJECTS,
  policyPreviewLogSubject,
  previewLogSubject,
} from './index';

const service = 'evaluator';

/** `preview.v1`: what previewing an experiment did to production traffic. */
export const PREVIEW_V1_PACKAGE = definePackage({
  name: 'preview.v1',
  version: '1.13.0',
  stability: 'stable',
  requests: [
    'ListPreviewLogsRequest',
    'GetPreviewReportRequest',
    'ListPreviewFlowsRequest',
    'BacktestRequest',
    'GetBacktestOperationRequest',
    'GetDeadLettersRequest',
  ],
  replies: [
    'ListPreviewLogsResponse',
    'PreviewReport',
    'ListPreviewFlowsResponse',
    'BacktestOperation',
    'DeadLetterSummary',
  ],
  events: ['PreviewLogBatch', 'PolicyPreviewLogBatch', 'CompactPolicyPreviewLog'],
  resources: [],
  deprecations: [
    {
      // The same log, compact: the evaluator publishes this one only with PREVIEW_LOGS_POLICY_JSON.
      target: policyPreviewLogSubject('{project}', '{location}', '{firewallPolicy}'),
      since: '1.10.0',
      replacement: compactPolicyPreviewLogSubject('{project}', '{location}', '{firewallPolicy}'),
      date: '2026-12-07',
      sunset: '2027-12-31',
    },
    {
      target: previewLogSubject('{project}', '{location}', '{firewallPolicy}', '{experiment}'),
      since: '1.8.0',
      replacement: policyPreviewLogSubject('{project}', '{location}', '{firewallPolicy}'),
      date: '2026-11-28',
      sunset: '2027-12-31',
    },
    {
      target: PREVIEW_SUBJECTS.previewLogs,
      since: '1.1.0',
      replacement: PREVIEW_SUBJECTS.previewFlows,
      date: '2026-11-25',
      sunset: '2027-12-31',
    },
    {
      target: 'ListPreviewLogsRequest.changedOnly',
      since: '1.1.0',
      replacement: 'ListPreviewFlowsRequest.filter',
      date: '2026-11-25',
      sunset: '2027-12-31',
    },
  ],
  requestReply: [
    {
      subject: PREVIEW_SUBJECTS.previewLogs,
      service,
      request: 'ListPreviewLogsRequest',
      reply: 'ListPreviewLogsResponse',
    },
    {
      subject: PREVIEW_SUBJECTS.previewReport,
      service,
      request: 'GetPreviewReportRequest',
      reply: 'PreviewReport',
    },
    {
      subject: PREVIEW_SUBJECTS.previewFlows,
      service,
      request: 'ListPreviewFlowsRequest',
      reply: 'ListPreviewFlowsResponse',
    },
    {
      subject: PREVIEW_SUBJECTS.backtest,
      service,
      request: 'BacktestRequest',
      reply: 'BacktestOperation',
    },
    {
      subject: PREVIEW_SUBJECTS.getOperation,
      service,
      request: 'GetBacktestOperationRequest',
      reply: 'BacktestOperation',
    },
    {
      subject: PREVIEW_SUBJECTS.deadLetters,
      service,
      request: 'GetDeadLettersRequest',
      reply: 'DeadLetterSummary',
    },
  ],
  streams: [
    {
      subject: compactPolicyPreviewLogSubject('{project}', '{location}', '{firewallPolicy}'),
      stream: PREVIEW_LOGS_STREAM,
      direction: 'out',
      service,
      message: 'CompactPolicyPreviewLog',
    },
    {
      subject: policyPreviewLogSubject('{project}', '{location}', '{firewallPolicy}'),
      stream: PREVIEW_LOGS_STREAM,
      direction: 'out',
      service,
      message: 'PolicyPreviewLogBatch',
    },
    {
      subject: previewLogSubject('{project}', '{location}', '{firewallPolicy}', '{experiment}'),
      stream: PREVIEW_LOGS_STREAM,
      direction: 'out',
      service,
      message: 'PreviewLogBatch',
    },
  ],
});
