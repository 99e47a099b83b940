import type {
  FirewallPolicyExperiment,
  PreviewConfigurationReport,
  PreviewReport,
  RuleDiff,
} from '@rollout/contracts';
import type { FunctionComponent } from 'preact';
import type { ExperimentRef } from '../api/client';
import type { Loaded } from '../changes/use-loaded';
import type { SankeyRules } from './sankey';

export interface ReportSectionProps {
  report: PreviewReport;
  /** The configuration (experiment etag × live policy etag) the operator is looking at. */
  configuration: PreviewConfigurationReport;
  experimentRef: ExperimentRef;
  /** Changes whenever the report's numbers change: sections with data of their own reload on it. */
  revision: string;
  /** The experiment as it is now; null once committed or deleted, undefined while loading. */
  experiment?: FirewallPolicyExperiment | null;
  /** The rules of the configuration's two versions, where they are still known. */
  rules: SankeyRules;
  /** The experiment's rule diff, read alongside the report (not after it) for the first screen. */
  diff: Loaded<RuleDiff>;
}

/**
 * One section of the preview report. The page renders REPORT_SECTIONS in order, each under its
 * own heading; a new part of the report is a new entry there, not a change to the page.
 */
export interface ReportSection {
  id: string;
  title: string;
  component: FunctionComponent<ReportSectionProps>;
}
