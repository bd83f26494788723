// The frame the step charts share (MetricChart and the compare view), so that they read alike: margins with room
// for the threshold and marker labels above and at the right, a light dashed grid, a numeric step axis spanning the
// data, and a value axis with small ticks. Spread into the recharts elements: `<XAxis {...STEP_AXIS} />`. Colours
// are the theme's CSS custom properties (app.css: light, and dark under prefers-color-scheme), so a chart follows the
// page's theme; a downloaded figure, read outside the page, uses each variable's light value (FIGURE_COLORS).
import type { CartesianGridProps, XAxisProps, YAxisProps } from 'recharts';

/** Chart margins in CSS pixels. */
export const CHART_MARGIN = { top: 18, right: 44, bottom: 4, left: 0 };

/** Chart colours on screen: theme variables, with the light theme's value as the fallback. */
export const CHART_COLORS = {
  text: 'var(--chart-text, #374151)',
  grid: 'var(--chart-grid, #e5e7eb)',
  /** the δ / γ threshold line and its label */
  threshold: 'var(--chart-threshold, #b45309)',
  /** the retirement marker and its label */
  marker: 'var(--chart-marker, #b91c1c)',
  /** the range a drag is selecting */
  selection: 'var(--chart-selection, #93c5fd)',
} as const;

/** A theme colour's light value (`var(--name, #hex)` → `#hex`), for a figure that leaves the page; others as given. */
export { figureColor } from '../../core/lineFigure';

export const CHART_GRID: CartesianGridProps = { stroke: CHART_COLORS.grid, strokeDasharray: '3 3' };

/** The x axis: training steps (`x` of each point), from the first point to the last. */
export const STEP_AXIS: XAxisProps = {
  dataKey: 'x',
  type: 'number',
  domain: ['dataMin', 'dataMax'],
  allowDuplicatedCategory: false,
  tick: { fontSize: 11, fill: CHART_COLORS.text },
};

/** The y axis: the metric's values, 56 px wide for four-digit ticks. */
export const VALUE_AXIS: YAxisProps = { tick: { fontSize: 11, fill: CHART_COLORS.text }, width: 56 };

export { SERIES_COLORS } from './chartPalette';

/** recharts' hover box in the theme's colours (its default is a white box whatever the theme) */
export const TOOLTIP_STYLE = {
  contentStyle: {
    background: 'var(--surface, #ffffff)',
    borderColor: 'var(--gray-300, #d1d5db)',
    color: 'var(--gray-900, #111827)',
  },
  labelStyle: { color: 'var(--gray-900, #111827)' },
} as const;
