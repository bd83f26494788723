// The distillation-form keys of the config (student.distill.*; src/core/experiment/configSchema.ts): typed defaults
// that keep every existing config meaning what it meant, and refusals that name the key and what was expected.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/core/experiment/config';
import { DEFAULT_CONFIG } from '../../../src/core/experiment/configSchema';
import { DISTILL_FORMS, formNeedsTeacherLogits } from '../../../src/core/methodVocabulary';

const withDistill = (distill: Record<string, unknown>) => ({
  ...DEFAULT_CONFIG,
  student: { ...DEFAULT_CONFIG.student, distill: { ...DEFAULT_CONFIG.student.distill, ...distill } },
});

const messageOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('the student.distill keys', () => {
  it('default to the original OPD form: reverse-kl with student.estimator', () => {
    expect(DEFAULT_CONFIG.student.distill).toEqual({
      form: 'reverse-kl',
      topK: 4,
      beta: 0.5,
      studentFraction: 1,
      refreshEvery: 20,
    });
    // a config written before the forms existed (no student.distill) validates to the same defaults
    const { distill: _dropped, ...student } = DEFAULT_CONFIG.student;
    expect(validateConfig({ ...DEFAULT_CONFIG, student }).student.distill).toEqual(DEFAULT_CONFIG.student.distill);
  });

  it('accept every form of the vocabulary', () => {
    for (const form of DISTILL_FORMS) expect(validateConfig(withDistill({ form })).student.distill.form).toBe(form);
  });

  it('accept GKD λ in [0, 1] with gkd-jsd', () => {
    for (const studentFraction of [0, 0.25, 1])
      expect(validateConfig(withDistill({ form: 'gkd-jsd', studentFraction })).student.distill.studentFraction).toBe(
        studentFraction,
      );
  });

  it('refuse λ outside [0, 1], and λ ≠ 1 with any form but gkd-jsd, naming the key', () => {
    const out = messageOf(() => validateConfig(withDistill({ form: 'gkd-jsd', studentFraction: 1.5 })));
    expect(out).toMatch(/student\.distill\.studentFraction.*\[0, 1\]/);
    for (const form of DISTILL_FORMS.filter((f) => f !== 'gkd-jsd')) {
      const m = messageOf(() => validateConfig(withDistill({ form, studentFraction: 0.5 })));
      expect(m, form).toContain('student.distill.studentFraction');
      expect(m, form).toContain(`expected 1 with form '${form}'`);
    }
  });

  it('refuse β outside [0, 1], k < 1 and an unknown key, naming each', () => {
    expect(messageOf(() => validateConfig(withDistill({ beta: 1.5 })))).toMatch(/student\.distill\.beta.*\[0, 1\]/);
    expect(messageOf(() => validateConfig(withDistill({ topK: 0 })))).toMatch(/student\.distill\.topK.*≥ 1/);
    expect(messageOf(() => validateConfig(withDistill({ lambda: 0.5 })))).toContain('lambda');
  });

  it('say which forms read the teacher’s whole distribution', () => {
    expect(formNeedsTeacherLogits('reverse-kl', 'k3')).toBe(false);
    expect(formNeedsTeacherLogits('reverse-kl', 'full')).toBe(true);
    expect(formNeedsTeacherLogits('self-distill', 'full')).toBe(true);
    expect(formNeedsTeacherLogits('topk-forward-kl', 'k3')).toBe(true);
    expect(formNeedsTeacherLogits('gkd-jsd', 'k3')).toBe(true);
    expect(formNeedsTeacherLogits('kl-reward', 'full')).toBe(false);
  });
});
