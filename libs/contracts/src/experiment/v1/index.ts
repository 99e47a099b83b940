export * from './resources';
export * from './messages';
