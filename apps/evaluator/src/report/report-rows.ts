/** Rows of the report's tables as the report's queries read them (bigint sums arrive as text). */

export interface ConfigurationRow {
  id: number;
  experiment_etag: string;
  live_policy_etag: string;
  evaluated: string;
  changed: string;
  allow_to_deny: string;
  deny_to_allow: string;
  unchanged_allow: string;
  unchanged_deny: string;
  flows: number;
  changed_outside_flows: string;
  redelivered: string;
  first_event_time: Date;
  last_event_time: Date;
  /** TRAFFIC drops observed since the configuration was created (see PreviewRetention.observeDrops). */
  dropped: string;
  undetermined: string;
}

export interface TransitionRow {
  configuration_id: number;
  live_priority: number;
  live_action: 'allow' | 'deny';
  experiment_priority: number;
  experiment_action: 'allow' | 'deny';
  count: string;
}

export interface BucketRow {
  configuration_id: number;
  width_seconds: number;
  start_time: Date;
  evaluated: string;
  changed: string;
  allow_to_deny: string;
  deny_to_allow: string;
}

export interface DisagreementRow {
  configuration_id: number;
  other_experiment: string;
  other_etag: string;
  events: string;
  outside: string;
}

export interface DisagreementFlowRow {
  configuration_id: number;
  other_experiment: string;
  other_etag: string;
  direction: 'INGRESS' | 'EGRESS';
  src_ip: string;
  dest_ip: string;
  protocol: string;
  dest_port: number;
  action: 'allow' | 'deny';
  count: string;
}

export interface RuleCountRow {
  configuration_id: number;
  /** 0: the live policy's rule; 1: the experiment's. */
  side: number;
  priority: number;
  action: string;
  count: string;
}

export interface SourceRow {
  configuration_id: number;
  src_ip: string;
  count: string;
}

export interface PortRow {
  configuration_id: number;
  protocol: string;
  dest_port: number;
  count: string;
}

export interface DeadLetterRow {
  configuration_id: number;
  reason: string;
  messages: string;
}

/** Everything a report shows of its configurations besides their totals. */
export interface ReportDetails {
  rules: RuleCountRow[];
  sources: SourceRow[];
  ports: PortRow[];
  transitions: TransitionRow[];
  buckets: BucketRow[];
  deadLetters: DeadLetterRow[];
  disagreements: DisagreementRow[];
  disagreementFlows: DisagreementFlowRow[];
}
