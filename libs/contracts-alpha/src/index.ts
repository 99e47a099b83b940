/** Stable contracts never import this lib (lint and `npm run contracts:check` refuse it). */
export * from './traffic/v2alpha';
