import type { Clock } from '@rollout/contracts';

export const CLOCK = Symbol('CLOCK');
export const systemClock: Clock = { now: () => new Date() };
