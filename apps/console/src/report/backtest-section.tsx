import { BacktestPanel } from './backtest-panel';
import type { ReportSectionProps } from './section';

/** The backtest, offered while the experiment exists (a committed one cannot be replayed). */
export function BacktestSection({
  experimentRef,
  experiment,
}: Pick<ReportSectionProps, 'experimentRef' | 'experiment'>) {
  if (experiment === null)
    return (
      <p class="muted">The experiment is gone (committed or deleted): it cannot be replayed.</p>
    );
  return <BacktestPanel experimentRef={experimentRef} />;
}
