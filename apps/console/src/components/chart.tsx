import { useEffect, useRef, useState } from 'preact/hooks';
import type { EChartsCoreOption, EChartsType } from '../charts/echarts';

interface ChartProps {
  /** What the chart shows, for screen readers (the numbers are also in the tables beside it). */
  label: string;
  option: EChartsCoreOption;
  height?: number;
}

/**
 * A new option is merged, so a refresh animates instead of redrawing; tooltips are drawn on the
 * canvas (richText), as the Content-Security-Policy refuses HTML tooltips' inline styles.
 */
export function Chart({ label, option, height = 320 }: ChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<EChartsType | undefined>(undefined);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let disposed = false;
    let observer: ResizeObserver | undefined;
    import('../charts/echarts')
      .then(({ init }) => {
        if (disposed || !container.current) return;
        chart.current = init(container.current, undefined, { renderer: 'canvas' });
        chart.current.setOption(option);
        observer = new ResizeObserver(() => chart.current?.resize());
        observer.observe(container.current);
      })
      .catch(() => setFailed(true));
    return () => {
      disposed = true;
      observer?.disconnect();
      chart.current?.dispose();
      chart.current = undefined;
    };
    // The chart is made once; option changes are merged by the effect below.
  }, []);

  useEffect(() => {
    chart.current?.setOption(option, { replaceMerge: ['series'] });
  }, [option]);

  if (failed)
    return <p class="muted">The chart could not be loaded; the numbers are in the table.</p>;
  return (
    <div
      ref={container}
      class="chart"
      role="img"
      aria-label={label}
      style={{ height: `${height}px` }}
    />
  );
}
