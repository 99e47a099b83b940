export * from './resources';
export * from './match-words';
export * from './messages';
export * from './names';
export * from './revisions';
export type { ListHistoryEventsResponse } from './package';
export * from './state-position';
