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
  /** Experiment etag × live policy etag. */
  configuration: PreviewConfigurationReport;
  experimentRef: ExperimentRef;
  /** Changes whenever the report's numbers do: sections with data of their own reload on it. */
  revision: string;
  /** Null once committed or deleted, undefined while loading. */
  experiment?: FirewallPolicyExperiment | null;
  /** Where still known. */
  rules: SankeyRules;
  /** Read alongside the report (not after it) for the first screen. */
  diff: Loaded<RuleDiff>;
}

/** A new part of the report is a new entry in REPORT_SECTIONS, not a change to the page. */
export interface ReportSection {
  id: string;
  title: string;
  component: FunctionComponent<ReportSectionProps>;
}
