/**
 * The parts of Apache ECharts the console draws with, registered once: importing the whole
 * library would triple the chart chunk. This module is loaded only when a chart is first shown.
 */
import { HeatmapChart, LineChart, SankeyChart } from 'echarts/charts';
import {
  DataZoomComponent,
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
  LineChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  VisualMapComponent,
  DataZoomComponent,
  CanvasRenderer,
]);

export { init };
export type { EChartsCoreOption, EChartsType } from 'echarts/core';
