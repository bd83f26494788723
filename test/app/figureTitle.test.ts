import { describe, expect, it } from 'vitest';
import { figureTitle, metricWords, seedsText } from '../../src/app/charts/figureTitle';

describe('figureTitle', () => {
  it('names the metric, the preset and the seeds in words', () => {
    expect(
      figureTitle(
        metricWords('val/success_rate'),
        ['retire-shell'],
        [1009, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008],
      ),
    ).toBe('Validation success, retire-shell, seeds 1000–1009');
    expect(figureTitle('Rollout success', ['smoke', 'smoke'], [5])).toBe('Rollout success, smoke, seed 5');
    expect(figureTitle('Rollout success', ['a', 'b'], [0, 2])).toBe('Rollout success, a+b, seeds 0, 2');
  });

  it('keeps an unknown metric key as it is', () => {
    expect(metricWords('custom/thing')).toBe('custom/thing');
  });

  it('writes two consecutive seeds as a list and a longer run as a range', () => {
    expect(seedsText([1, 2])).toBe('seeds 1, 2');
    expect(seedsText([3, 1, 2, 2])).toBe('seeds 1–3');
    expect(seedsText([])).toBe('no seeds');
  });
});
