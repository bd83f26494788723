// The frame the step charts share (MetricChart and the compare view), so that they read alike: margins with room
// for the threshold and marker labels above and at the right, a light dashed grid, a numeric step axis spanning the
// data, and a value axis with small ticks. Spread into the recharts elements: `<XAxis {...STEP_AXIS} />`.
import type { CartesianGridProps, XAxisProps, YAxisProps } from 'recharts';

/** Chart margins in CSS pixels. */
export const CHART_MARGIN = { top: 18, right: 44, bottom: 4, left: 0 };

export const CHART_GRID: CartesianGridProps = { stroke: '#e5e7eb', strokeDasharray: '3 3' };

/** The x axis: training steps (`x` of each point), from the first point to the last. */
export const STEP_AXIS: XAxisProps = {
  dataKey: 'x',
  type: 'number',
  domain: ['dataMin', 'dataMax'],
  allowDuplicatedCategory: false,
  tick: { fontSize: 11 },
};

/** The y axis: the metric's values, 56 px wide for four-digit ticks. */
export const VALUE_AXIS: YAxisProps = { tick: { fontSize: 11 }, width: 56 };

/** One colour per line where a chart draws several runs or arms (the compare view, the queue's runs side by side). */
export const SERIES_COLORS = ['#2563eb', '#dc2626', '#059669', '#7c3aed', '#ea580c', '#0891b2', '#db2777', '#4b5563'];
