export { FORMAT_NAMES, isFormatName } from './formats';
export type { FormatName } from './formats';
export { ImportFailed, emptySummary, importFlows } from './importer';
export type { BadLineReport, ImportOptions, ImportSummary } from './importer';
export { InputError, resolveInputs } from './inputs';
export type { Input } from './inputs';
export { PolicyRouteError, parsePolicyRoutes } from './policy-routes';
export { formatSummary } from './report';
