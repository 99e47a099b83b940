import { TRAFFIC_STREAM, definePackage } from '@rollout/contracts';
import { trafficV2alphaSubject } from './index';

/** `traffic.v2alpha`: traffic events in batches, with spelled-out address fields; beside traffic.v1. */
export const TRAFFIC_V2ALPHA_PACKAGE = definePackage({
  name: 'traffic.v2alpha',
  version: '2.1.0-alpha.1',
  stability: 'alpha',
  requests: [],
  replies: [],
  events: ['TrafficEventBatch'],
  resources: [],
  streams: [
    {
      subject: trafficV2alphaSubject('{project}', '{location}', '{firewallPolicy}'),
      stream: TRAFFIC_STREAM,
      direction: 'in',
      service: 'evaluator',
      message: 'TrafficEventBatch',
    },
  ],
});
