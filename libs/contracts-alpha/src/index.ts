/**
 * Alpha contracts (`vNalpha` packages): breaking experiments kept apart from the stable ones.
 * A stable contract never imports this lib (lint and `npm run contracts:check` refuse it); apps
 * may. An alpha package is promoted to a stable `vN` or removed, never depended on by a stable one.
 */
export * from './traffic/v2alpha';
