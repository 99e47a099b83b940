import { ChangedFlows } from './changed-flows';
import { ChangesOverTime } from './changes-over-time';
import { Completeness } from './completeness';
import { Disagreements } from './disagreements';
import { RuleTransitions } from './rule-transitions';
import type { ReportSection } from './section';
import { VerdictMatrix } from './verdict-matrix';

/** The report page's sections, in order. A new part of the preview report is one more entry. */
export const REPORT_SECTIONS: ReportSection[] = [
  { id: 'verdicts', title: 'Verdicts', component: VerdictMatrix },
  { id: 'completeness', title: 'Are these all the events?', component: Completeness },
  {
    id: 'rule-transitions',
    title: 'Which rule takes the traffic over',
    component: RuleTransitions,
  },
  { id: 'over-time', title: 'When verdicts change', component: ChangesOverTime },
  { id: 'flows', title: 'Changed flows', component: ChangedFlows },
  {
    id: 'disagreements',
    title: 'Other active experiments deciding differently',
    component: Disagreements,
  },
];
