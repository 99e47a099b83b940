/** Only the parts drawn with: the whole library would triple the chart chunk, loaded when a chart is first shown. */
import { BarChart, HeatmapChart, SankeyChart } from 'echarts/charts';
import {
  GridComponent,
  LegendComponent,
  TooltipComponent,
  VisualMapComponent,
} from 'echarts/components';
import { init, use } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';

use([
  SankeyChart,
  HeatmapChart,
  BarChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  VisualMapComponent,
  CanvasRenderer,
]);

export { init };
export type { EChartsCoreOption, EChartsType } from 'echarts/core';
