import { describe, expect, it } from 'vitest';
import { parseTrainLink } from '../../src/app/train/trainLink';
import { backendChain } from '../../src/app/worker/protocol';
import { BASELINES, createEnv } from '../../src/core/env';
import { ConfigError, DEFAULT_CONFIG, resolveConfig } from '../../src/core/experiment/config';
import { GATE_DEFAULTS } from '../../src/core/gateConfig';
import {
  BACKEND_CHOICES,
  BACKEND_FALLBACK,
  BACKEND_NAMES,
  DEMONSTRATORS,
  ENV_NAMES,
  formatScheduleSpec,
  GATE_RULES,
  GATED_SCHEDULE_KINDS,
  gateRuleFor,
  GRPO_ADVANTAGES,
  GRPO_AGGREGATIONS,
  NODE_BACKEND_NAMES,
  OPD_ESTIMATORS,
  parseScheduleSpec,
  SCHEDULE_FORMS,
  SCHEDULE_KINDS,
  VALIDATION_METRICS,
} from '../../src/core/methodVocabulary';
import { parseBackendName } from '../../src/engine/backend';
import { DEFAULT_OPD_ESTIMATOR } from '../../src/engine/losses/opdLoss';

/** Whether the config accepts `value` at the dotted `key` (a ConfigError means no). */
function configAccepts(key: string, value: unknown): boolean {
  const parts = key.split('.');
  const partial = parts.reduceRight<unknown>((inner, part) => ({ [part]: inner }), value);
  try {
    resolveConfig(partial);
    return true;
  } catch (e) {
    if (e instanceof ConfigError) return false;
    throw e;
  }
}

const parses = (text: string): boolean => {
  try {
    parseScheduleSpec(text);
    return true;
  } catch {
    return false;
  }
};

describe('parseScheduleSpec', () => {
  it('parses every schedule of the spec', () => {
    expect(parseScheduleSpec('adaptive')).toEqual({ kind: 'adaptive' });
    expect(parseScheduleSpec('never')).toEqual({ kind: 'never' });
    expect(parseScheduleSpec('none')).toEqual({ kind: 'none' });
    expect(parseScheduleSpec('alignment-only')).toEqual({ kind: 'alignment-only' });
    expect(parseScheduleSpec('competence-only')).toEqual({ kind: 'competence-only' });
    expect(parseScheduleSpec('fixed:40')).toEqual({ kind: 'fixed', step: 40 });
    expect(parseScheduleSpec('linear:100')).toEqual({ kind: 'linear', step: 100 });
  });

  it.each([
    ['adaptiv', /unknown schedule "adaptiv" \(expected one of adaptive, never, none, fixed:N/],
    ['fixed', /fixed:N needs a step N, e\.g\. fixed:40/],
    ['fixed:', /fixed:N needs a step N/],
    ['fixed:-3', /N must be a positive integer \(a student step, from 1\), got "-3"/],
    ['fixed:2.5', /N must be a positive integer .*, got "2.5"/],
    ['fixed:0', /N must be a positive integer .*, got "0"/],
    ['fixed:007', /N must be a positive integer .*, got "007"/],
    ['fixed:99999999999999999999', /N must be a positive integer .*, got "99999999999999999999"/],
    [' adaptive', /unknown schedule " adaptive"/],
    ['linear:0', /N must be a positive integer .*, got "0"/],
    ['linear:abc', /N must be a positive integer .*, got "abc"/],
    ['never:3', /unknown schedule/],
  ])('rejects "%s" with a clear message', (text, message) => {
    expect(() => parseScheduleSpec(text)).toThrow(message);
  });
});

describe('the method vocabulary is the one source of the config, the parsers and the app', () => {
  it('every schedule form parses, formats back to itself and is accepted by the config', () => {
    expect(SCHEDULE_FORMS).toEqual([
      'adaptive',
      'never',
      'none',
      'fixed:N',
      'linear:N',
      'alignment-only',
      'competence-only',
    ]);
    for (const form of SCHEDULE_FORMS) {
      const text = form.replace(':N', ':40');
      const spec = parseScheduleSpec(text);
      expect(SCHEDULE_KINDS).toContain(spec.kind);
      expect(formatScheduleSpec(spec)).toBe(text);
      expect(configAccepts('student.schedule', text), text).toBe(true);
    }
  });

  it('the config accepts a schedule exactly when parseScheduleSpec does (fixed:0 refused by both)', () => {
    const candidates = [
      'fixed:0',
      'linear:0',
      'fixed:1',
      'linear:1',
      'fixed:007',
      'fixed:12',
      ' adaptive',
      'adaptive ',
      'Adaptive',
      'fixed',
      'fixed:-3',
      'linear:2.5',
      'never:3',
      '',
    ];
    for (const text of candidates) expect(configAccepts('student.schedule', text), text).toBe(parses(text));
    expect(parses('fixed:0')).toBe(false);
    expect(parses('fixed:1')).toBe(true);
  });

  it('gated schedules retire by a gate rule, the others only observe, and every rule is reachable but none', () => {
    for (const kind of SCHEDULE_KINDS) {
      const gated = (GATED_SCHEDULE_KINDS as readonly string[]).includes(kind);
      expect(gateRuleFor(kind) === 'observe-only', kind).toBe(!gated);
    }
    expect(new Set(SCHEDULE_KINDS.map(gateRuleFor))).toEqual(new Set(GATE_RULES));
  });

  it('each enumerated config key accepts exactly its vocabulary list', () => {
    const lists: [string, readonly string[]][] = [
      ['env.name', ENV_NAMES],
      ['demonstrations.studentPolicy', DEMONSTRATORS],
      ['demonstrations.teacherPolicy', DEMONSTRATORS],
      ['teacher.grpo.advantage', GRPO_ADVANTAGES],
      ['student.grpo.aggregation', GRPO_AGGREGATIONS],
      ['student.estimator', OPD_ESTIMATORS],
      ['student.validationMetric', VALIDATION_METRICS],
      ['runtime.backend', BACKEND_NAMES],
    ];
    for (const [key, names] of lists) {
      for (const name of names) expect(configAccepts(key, name), `${key}=${name}`).toBe(true);
      expect(configAccepts(key, 'not-a-name'), key).toBe(false);
    }
  });

  it('every backend name parses, and the app offers auto plus every backend in fallback order', () => {
    for (const name of BACKEND_NAMES) expect(parseBackendName(name.toUpperCase())).toBe(name);
    expect(() => parseBackendName('tpu')).toThrow(/expected one of cpu, wasm, webgl, webgpu/);
    expect(NODE_BACKEND_NAMES).not.toContain('webgl');
    expect([...BACKEND_FALLBACK].sort()).toEqual([...BACKEND_NAMES].sort());
    expect(BACKEND_CHOICES).toEqual(['auto', 'webgpu', 'webgl', 'wasm', 'cpu']);
    expect(backendChain('auto')).toEqual([...BACKEND_FALLBACK]);
    for (const choice of BACKEND_CHOICES) {
      const { form, errors } = parseTrainLink(`backend=${choice}`, null);
      expect(errors, choice).toEqual([]);
      expect(form.backend).toBe(choice);
    }
  });

  it('every environment name builds an environment, and every demonstrator is one of its scripted policies', () => {
    for (const name of ENV_NAMES) expect(createEnv(name).name).toBe(name);
    for (const d of DEMONSTRATORS) expect(BASELINES).toContain(d);
  });

  it('defaults agree across modules: the OPD estimator and the gate (gateConfig.ts vs student.gate)', () => {
    expect(DEFAULT_CONFIG.student.estimator).toBe(DEFAULT_OPD_ESTIMATOR);
    expect(DEFAULT_CONFIG.student.gate).toEqual({
      windowSize: GATE_DEFAULTS.windowSize,
      alignmentThreshold: GATE_DEFAULTS.alignmentThreshold,
      competenceThreshold: GATE_DEFAULTS.competenceThreshold,
      denominatorEpsilon: GATE_DEFAULTS.denominatorEpsilon,
    });
  });
});
