import { baseConfigSchema, positiveInt } from '@rollout/config';
import { z } from 'zod';

export const configSchema = z.object({
  ...baseConfigSchema(3000).shape,
  /** Deadline of every call from the gateway to a service over NATS. */
  RPC_TIMEOUT_MS: positiveInt(3_000),
});

export type Config = z.output<typeof configSchema>;
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
