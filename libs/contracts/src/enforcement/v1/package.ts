import { definePackage } from '../../packages';
import { ENFORCEMENT_SUBJECTS as S } from './messages';

// A reply the service returns that has no name of its own in messages.ts.
export type Empty = Record<string, never>;

const service = 'enforcement-service';

/** `enforcement.v1`: leases, the filter chain's decisions, and Blazar's external enforcement protocol. */
export const ENFORCEMENT_V1_PACKAGE = definePackage({
  name: 'enforcement.v1',
  version: '1.0.0',
  stability: 'stable',
  requests: [
    'CreateLeaseRequest',
    'GetLeaseRequest',
    'ListLeasesRequest',
    'UpdateLeaseRequest',
    'EndLeaseRequest',
    'DeleteLeaseRequest',
    'ListDecisionsRequest',
    'BlazarCheckCreateRequest',
    'BlazarCheckUpdateRequest',
    'BlazarOnEndRequest',
  ],
  replies: ['ListLeasesResponse', 'ListDecisionsResponse', 'BlazarVerdict', 'Empty'],
  events: [],
  resources: ['Lease'],
  requestReply: [
    { subject: S.createLease, service, request: 'CreateLeaseRequest', reply: 'Lease' },
    { subject: S.getLease, service, request: 'GetLeaseRequest', reply: 'Lease' },
    { subject: S.listLeases, service, request: 'ListLeasesRequest', reply: 'ListLeasesResponse' },
    { subject: S.updateLease, service, request: 'UpdateLeaseRequest', reply: 'Lease' },
    { subject: S.endLease, service, request: 'EndLeaseRequest', reply: 'Lease' },
    { subject: S.deleteLease, service, request: 'DeleteLeaseRequest', reply: 'Empty' },
    {
      subject: S.listDecisions,
      service,
      request: 'ListDecisionsRequest',
      reply: 'ListDecisionsResponse',
    },
    {
      subject: S.blazarCheckCreate,
      service,
      request: 'BlazarCheckCreateRequest',
      reply: 'BlazarVerdict',
    },
    {
      subject: S.blazarCheckUpdate,
      service,
      request: 'BlazarCheckUpdateRequest',
      reply: 'BlazarVerdict',
    },
    { subject: S.blazarOnEnd, service, request: 'BlazarOnEndRequest', reply: 'BlazarVerdict' },
  ],
});
