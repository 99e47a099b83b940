import type { Clock } from '@rollout/enforcement-domain';

export const CLOCK = Symbol('CLOCK');
export const systemClock: Clock = { now: () => new Date() };
