export { analyzeExperiment, ANALYSIS_WORK_LIMIT } from './analyze';
export type { AnalysisOptions } from './analyze';
export { regionMatcher, regionTraffic, untouchedRegions } from './regions';
export type { RegionTraffic } from './regions';
