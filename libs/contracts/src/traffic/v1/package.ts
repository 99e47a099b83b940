import { definePackage } from '../../packages';
import { TRAFFIC_STREAM, trafficSubject } from './index';

/** `traffic.v1`: production traffic, one event per connection, for the evaluator. */
export const TRAFFIC_V1_PACKAGE = definePackage({
  name: 'traffic.v1',
  version: '1.1.0',
  stability: 'stable',
  requests: [],
  replies: [],
  events: ['TrafficEvent'],
  resources: [],
  streams: [
    {
      subject: trafficSubject('{project}', '{location}', '{firewallPolicy}'),
      stream: TRAFFIC_STREAM,
      direction: 'in',
      service: 'evaluator',
      message: 'TrafficEvent',
    },
  ],
});
