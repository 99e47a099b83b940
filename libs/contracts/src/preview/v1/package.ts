import { definePackage } from '../../packages';
import { PREVIEW_LOGS_STREAM, PREVIEW_SUBJECTS, previewLogSubject } from './index';

const service = 'evaluator';

/** `preview.v1`: what previewing an experiment did to production traffic. */
export const PREVIEW_V1_PACKAGE = definePackage({
  name: 'preview.v1',
  version: '1.0.0',
  stability: 'stable',
  requests: ['ListPreviewLogsRequest', 'GetPreviewReportRequest'],
  replies: ['ListPreviewLogsResponse', 'PreviewReport'],
  events: ['PreviewLogBatch'],
  resources: [],
  requestReply: [
    { subject: PREVIEW_SUBJECTS.previewLogs, service, request: 'ListPreviewLogsRequest', reply: 'ListPreviewLogsResponse' },
    { subject: PREVIEW_SUBJECTS.previewReport, service, request: 'GetPreviewReportRequest', reply: 'PreviewReport' },
  ],
  streams: [
    {
      subject: previewLogSubject('{project}', '{location}', '{firewallPolicy}', '{experiment}'),
      stream: PREVIEW_LOGS_STREAM,
      direction: 'out',
      service,
      message: 'PreviewLogBatch',
    },
  ],
});
