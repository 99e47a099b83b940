export * from './names';
export * from './state';
export * from './records';
export * from './totals';
export * from './page-token';
