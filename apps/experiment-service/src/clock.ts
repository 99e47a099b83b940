import type { Clock } from '@rollout/experiment-domain';

export const CLOCK = Symbol('CLOCK');
export const systemClock: Clock = { now: () => new Date() };
