import { definePackage, type ServiceName } from '../../packages';
import { START_TIME_FEATURE, serviceInfoSubject } from './index';

/** The info request carries nothing. */
export type ServiceInfoRequest = Record<string, never>;

/** `system.v1`: what each service says about itself (contracts, versions, features). */
export const SYSTEM_V1_PACKAGE = definePackage({
  name: 'system.v1',
  version: '1.1.0',
  stability: 'stable',
  requests: ['ServiceInfoRequest'],
  replies: ['ServiceInfo', 'ListServicesResponse'],
  events: [],
  resources: [],
  features: [START_TIME_FEATURE],
  requestReply: [
    {
      subject: serviceInfoSubject('{service}' as ServiceName),
      request: 'ServiceInfoRequest',
      reply: 'ServiceInfo',
    },
  ],
});
