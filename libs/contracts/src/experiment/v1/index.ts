export * from './resources';
export * from './messages';
export * from './revisions';
