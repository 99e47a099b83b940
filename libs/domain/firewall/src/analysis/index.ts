export { analyzeExperiment, ANALYSIS_WORK_LIMIT } from './analyze';
export type { AnalysisOptions } from './analyze';
export { regionMatcher, untouchedRegions } from './regions';
