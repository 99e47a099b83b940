export * from './names';
export * from './state';
export * from './records';
export * from './totals';
export * from './evaluation';
export * from './flow-filter';
export * from './page-token';
export * from './completeness';
