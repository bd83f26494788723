// A standalone line figure: it carries its title, axis labels, a legend entry per series and per marker kind, dashes
// where asked, the notes, and the slide size; ticks are round numbers.
import { describe, expect, it } from 'vitest';
import { figureColor, FIGURE_HEIGHT, FIGURE_WIDTH, lineFigureSvg, niceTicks } from '../../src/core/lineFigure';

const svg = lineFigureSvg({
  title: 'val/success_rate (student) & more',
  xLabel: 'student step',
  yLabel: 'val/success_rate',
  yDomain: [0, 1],
  series: [
    {
      label: 'student.schedule=adaptive',
      color: '#2563eb',
      points: [
        { x: 0, y: 0.2 },
        { x: 40, y: 0.6 },
      ],
      band: [
        { x: 0, lo: 0.1, hi: 0.3 },
        { x: 40, lo: 0.5, hi: 0.7 },
      ],
    },
    { label: 'student.schedule=never', color: '#dc2626', points: [{ x: 0, y: 0.2 }], dash: '7 5' },
  ],
  markers: [
    { x: 20, color: '#2563eb', label: 'retirement' },
    { x: 30, color: '#2563eb', label: 'retirement' },
  ],
  notes: ['student.schedule=never is identical to student.schedule=adaptive until step 0 (drawn dashed)'],
});

describe('a line figure', () => {
  it('is sized for a 16:9 slide', () => {
    expect([FIGURE_WIDTH, FIGURE_HEIGHT]).toEqual([960, 540]);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="960" height="540" viewBox="0 0 960 540"/);
  });

  it('carries its title (escaped), both axis labels, every series and one entry per marker kind', () => {
    const texts = [...svg.matchAll(/<text[^>]*class="([\w-]+)"[^>]*>([^<]*)<\/text>/g)].map((m) => [m[1], m[2]]);
    expect(texts).toEqual([
      ['figure-title', 'val/success_rate (student) &amp; more'],
      ['axis-label', 'student step'],
      ['axis-label', 'val/success_rate'],
      ['legend-entry', 'student.schedule=adaptive'],
      ['legend-entry', 'student.schedule=never'],
      ['legend-entry', 'retirement (dashed, in the series’ colour)'],
      ['figure-note', 'student.schedule=never is identical to student.schedule=adaptive until step 0 (drawn dashed)'],
    ]);
  });

  it('dashes the series asked to be dashed, in the plot and in the legend', () => {
    expect(svg.match(/stroke="#dc2626" stroke-width="[\d.]+" stroke-dasharray="7 5"/g)).toHaveLength(2);
    expect(svg.match(/stroke="#2563eb" stroke-width="[\d.]+" stroke-dasharray/g)).toBeNull();
  });

  it('draws a marker at each retirement and a band under the line', () => {
    expect(svg.match(/<title>retirement at step (\d+)<\/title>/g)).toEqual([
      '<title>retirement at step 20</title>',
      '<title>retirement at step 30</title>',
    ]);
    expect(svg.match(/<polygon /g)).toHaveLength(1);
  });

  it('puts ticks on round numbers', () => {
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0, 400, 8)).toEqual([0, 50, 100, 150, 200, 250, 300, 350, 400]);
    expect(niceTicks(0.784, 1.016)).toEqual([0.8, 0.85, 0.9, 0.95, 1]);
    expect(niceTicks(3, 3)).toEqual([3]);
  });

  it('paints a theme variable as its light fallback, so the file reads outside the page', () => {
    expect(figureColor('var(--arm-retire, #2563eb)')).toBe('#2563eb');
    expect(figureColor('#dc2626')).toBe('#dc2626');
    const themed = lineFigureSvg({
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      series: [{ label: 'RetireOPD', color: 'var(--arm-retire, #2563eb)', points: [{ x: 0, y: 1 }] }],
      markers: [{ x: 0, color: 'var(--chart-marker, #b91c1c)', label: 'retirement' }],
      thresholds: [{ y: 0.5, color: 'var(--chart-threshold, #b45309)', label: 'γ' }],
    });
    expect(themed).not.toContain('var(');
    expect(themed).toContain('stroke="#2563eb"');
    expect(themed).toContain('fill="#b91c1c"');
    expect(themed).toContain('stroke="#b45309"');
  });
});
