import { BacktestSection } from './backtest-section';
import { ChangedFlows } from './changed-flows';
import { ChangesOverTime } from './changes-over-time';
import { Completeness } from './completeness';
import { Disagreements } from './disagreements';
import { EvidenceSummary } from './evidence-summary';
import { RuleTransitions } from './rule-transitions';
import type { ReportSection } from './section';
import { VerdictMatrix } from './verdict-matrix';
import { WhatChanges } from './what-changes';

/** What changes first, then the evidence, then time, flows and the rest. */
export const REPORT_SECTIONS: ReportSection[] = [
  { id: 'what-changes', title: 'What changes', component: WhatChanges },
  { id: 'evidence', title: 'How much previewed traffic it changes', component: EvidenceSummary },
  {
    id: 'rule-transitions',
    title: 'Which rule takes the traffic over',
    component: RuleTransitions,
  },
  { id: 'over-time', title: 'Verdicts over time', component: ChangesOverTime },
  { id: 'flows', title: 'Changed flows', component: ChangedFlows },
  { id: 'backtest', title: 'Backtest on retained traffic', component: BacktestSection },
  { id: 'verdicts', title: 'Verdicts', component: VerdictMatrix },
  { id: 'completeness', title: 'Are these all the events?', component: Completeness },
  {
    id: 'disagreements',
    title: 'Other active experiments deciding differently',
    component: Disagreements,
  },
];
