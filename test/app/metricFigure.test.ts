// A Train/Replay chart's download: a figure that reads on its own — its title, the step axis and the lines' names as
// axis labels, a legend with each line, the threshold (when on the scale) and the retirement marker, and its note.
import { describe, expect, it } from 'vitest';
import { metricFigure } from '../../src/app/charts/MetricChart';

const texts = (svg: string, cls: string) =>
  [...svg.matchAll(new RegExp(`<text[^>]*class="${cls}"[^>]*>([^<]*)</text>`, 'g'))].map((m) => m[1]);

const eta = {
  title: 'η — competence ratio',
  lines: [
    {
      name: 'η',
      color: '#059669',
      points: [
        { x: 5, y: 0.8 },
        { x: 10, y: 0.95 },
      ],
    },
  ],
  threshold: { y: 0.9, label: 'γ = 0.9' },
  marker: { x: 10, label: 'retired @ 10' },
  note: 'η = (S + S_prev) / (2·S_T)',
};

describe('a chart’s downloaded figure', () => {
  it('carries the title, axis labels and a legend with the line, the threshold and the retirement', () => {
    const svg = metricFigure(eta, [0.75, 1]);
    expect(texts(svg, 'figure-title')).toEqual(['η — competence ratio']);
    expect(texts(svg, 'axis-label')).toEqual(['step', 'η']);
    expect(texts(svg, 'legend-entry')).toEqual(['η', 'retirement (dashed, in the series’ colour)', 'γ = 0.9']);
    expect(texts(svg, 'figure-note')).toEqual(['η = (S + S_prev) / (2·S_T)']);
    expect(svg).toContain('<title>retirement at step 10</title>');
  });

  it('leaves out a threshold far off the data (a relaxed preset’s δ = 10⁶), as the chart does', () => {
    const svg = metricFigure({ ...eta, threshold: { y: 1e6, label: 'δ = 1000000' } });
    expect(texts(svg, 'legend-entry')).toEqual(['η', 'retirement (dashed, in the series’ colour)']);
  });

  it('keeps a threshold inside a fixed y domain even when the data so far lie far below it (S_T over early steps)', () => {
    const early = {
      ...eta,
      lines: [
        {
          ...eta.lines[0]!,
          points: [
            { x: 5, y: 0.15 },
            { x: 9, y: 0.12 },
          ],
        },
      ],
    };
    const sT = { y: 0.766, label: 'S_T 76.6 %' };
    const fixed = metricFigure({ ...early, threshold: sT, yDomain: [0, 1] }, [0, 1]);
    expect(texts(fixed, 'legend-entry')).toContain('S_T 76.6 %');
    const free = metricFigure({ ...early, threshold: sT });
    expect(texts(free, 'legend-entry')).not.toContain('S_T 76.6 %');
  });
});
