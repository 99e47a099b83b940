/** The durable consumer on TRAFFIC that every evaluator replica shares (provisioned with the rest of the bus: libs/platform/nats bus-topology). */
export { TRAFFIC_DURABLE } from '@rollout/platform/nats';
