import { describe, expect, it } from 'vitest';
import { normaliseMetricKey } from '../../../src/core/replay/metricKey';

describe('normaliseMetricKey', () => {
  it('equates "/" with "_" and upper with lower case', () => {
    expect(normaliseMetricKey('Val/Success_Rate')).toBe('val_success_rate');
    expect(normaliseMetricKey('val_success_rate')).toBe('val_success_rate');
  });

  it('composes to NFC, so a decomposed "é" equals the composed one', () => {
    expect(normaliseMetricKey('e\u0301cart')).toBe('\u00e9cart');
    expect(normaliseMetricKey('\u00c9CART')).toBe('\u00e9cart');
  });

  it('lower-cases other scripts and keeps every other character', () => {
    expect(normaliseMetricKey('ТОЧНОСТЬ')).toBe('точность');
    expect(normaliseMetricKey('成功率')).toBe('成功率');
    expect(normaliseMetricKey('成功率')).not.toBe(normaliseMetricKey('准确率'));
    expect(normaliseMetricKey(' a-b.c ')).toBe(' a-b.c ');
  });
});
