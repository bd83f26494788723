// The colours of chart lines and bars that are not an arm of the lesson (armIdentity.ts has those): theme custom
// properties (app.css, a light and a dark value, each at least 3:1 against its theme's background, as WCAG asks of
// graphics) with the light value as the fallback a downloaded figure uses (core/lineFigure.ts resolves it).
export const HUE = {
  blue: 'var(--hue-blue, #2563eb)',
  red: 'var(--hue-red, #dc2626)',
  green: 'var(--hue-green, #059669)',
  violet: 'var(--hue-violet, #7c3aed)',
  orange: 'var(--hue-orange, #ea580c)',
  cyan: 'var(--hue-cyan, #0891b2)',
  pink: 'var(--hue-pink, #db2777)',
  gray: 'var(--hue-gray, #4b5563)',
  amber: 'var(--hue-amber, #d97706)',
  /** the page's text colour: near black in light, near white in dark */
  ink: 'var(--chart-ink, #111827)',
  /** a faint line behind the others (a recording raced against) */
  faint: 'var(--gray-300, #d1d5db)',
} as const;

/** One colour per line where a chart draws several runs or arms (the compare view, the queue's runs side by side). */
export const SERIES_COLORS = [HUE.blue, HUE.red, HUE.green, HUE.violet, HUE.orange, HUE.cyan, HUE.pink, HUE.gray];
