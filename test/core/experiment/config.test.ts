import { describe, expect, it } from 'vitest';
import {
  applyOverrides,
  ConfigError,
  configDiff,
  configKeys,
  DEFAULT_CONFIG,
  parseOverride,
  resolveConfig,
  validateConfig,
} from '../../../src/core/experiment/config';

function messagesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e.messages;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('experiment config', () => {
  it('resolves an empty partial to the typed defaults', () => {
    expect(resolveConfig({})).toEqual(DEFAULT_CONFIG);
  });

  it('merges a nested partial over the defaults without touching siblings', () => {
    const cfg = resolveConfig({ student: { gate: { windowSize: 3 } } });
    expect(cfg.student.gate.windowSize).toBe(3);
    expect(cfg.student.gate.competenceThreshold).toBe(0.9);
    expect(cfg.student.steps).toBe(DEFAULT_CONFIG.student.steps);
  });

  it('rejects an unknown top-level key naming it and listing the valid keys', () => {
    const [msg] = messagesOf(() => resolveConfig({ studnet: {} }));
    expect(msg).toContain('unknown key "studnet"');
    expect(msg).toContain('student');
    expect(msg).toContain('runtime');
  });

  it('rejects an unknown nested key listing the keys valid at that level', () => {
    const [msg] = messagesOf(() => resolveConfig({ student: { gate: { window: 5 } } }));
    expect(msg).toContain('unknown key "student.gate.window"');
    expect(msg).toContain('windowSize, alignmentThreshold, competenceThreshold, denominatorEpsilon');
  });

  it("refuses a saved run's removed key with what to do instead, not as an unknown key", () => {
    const saved = structuredClone(DEFAULT_CONFIG) as unknown as { sft: Record<string, unknown> };
    saved.sft.skillViewFraction = 0.5;
    const [msg] = messagesOf(() => validateConfig(saved, 'run/config.json'));
    expect(msg).toContain('key "sft.skillViewFraction" was removed');
    expect(msg).toContain('teacher.sftSteps');
    expect(msg).not.toContain('unknown key');
  });

  it('names the field and the expectation for out-of-range and mistyped values', () => {
    const msgs = messagesOf(() =>
      resolveConfig({ student: { lambdaOpd: -1, gate: { windowSize: 2.5 } }, env: { name: 'moon' } }),
    );
    const text = msgs.join('\n');
    expect(text).toMatch(/student\.lambdaOpd: expected a number ≥ 0 \(got -1\)/);
    expect(text).toMatch(/student\.gate\.windowSize: expected an integer/);
    expect(text).toMatch(/env\.name: .*shell.*house.*shop/);
  });

  it('accepts every schedule form and rejects malformed ones with the list of schedules', () => {
    for (const s of ['adaptive', 'never', 'none', 'fixed:30', 'linear:7', 'alignment-only', 'competence-only']) {
      expect(resolveConfig({ student: { schedule: s } }).student.schedule).toBe(s);
    }
    for (const s of ['fixed', 'fixed:0', 'linear:-3', 'Adaptive']) {
      const [msg] = messagesOf(() => resolveConfig({ student: { schedule: s } }));
      expect(msg).toContain('student.schedule');
      expect(msg).toContain('competence-only');
    }
  });

  it('rejects heads that do not divide the width and pass@k beyond n', () => {
    const text = messagesOf(() =>
      resolveConfig({ model: { width: 30, heads: 4 }, evaluation: { passN: 4, passK: [1, 8] } }),
    ).join('\n');
    expect(text).toContain('model.heads: 4 must divide model.width 30');
    expect(text).toContain('k=8 exceeds evaluation.passN=4');
  });

  it('parses --set values by the type of the default at that key', () => {
    expect(parseOverride('student.lambdaOpd=0.25')).toEqual({ student: { lambdaOpd: 0.25 } });
    expect(parseOverride('name=123')).toEqual({ name: '123' });
    expect(parseOverride('evaluation.passK=[1,2]')).toEqual({ evaluation: { passK: [1, 2] } });
    const cfg = applyOverrides(DEFAULT_CONFIG, ['student.schedule=fixed:12', 'seed=7']);
    expect(cfg.student.schedule).toBe('fixed:12');
    expect(cfg.seed).toBe(7);
  });

  it('rejects --set with an unknown key, a non-number, or no "="', () => {
    expect(messagesOf(() => parseOverride('student.lamdaOpd=1'))[0]).toMatch(
      /unknown key "student.lamdaOpd" \(valid keys under "student": steps, grpo, schedule, lambdaOpd/,
    );
    expect(messagesOf(() => parseOverride('student.steps=many'))[0]).toBe(
      'student.steps: expected a number, got "many"',
    );
    expect(messagesOf(() => parseOverride('student.steps'))[0]).toContain('expected key=value');
    expect(messagesOf(() => parseOverride('seed=0x10'))[0]).toBe(
      'seed: expected an integer ≥ 0 in decimal digits, got "0x10"',
    );
    expect(messagesOf(() => parseOverride('env.seed=-0'))[0]).toBe(
      'env.seed: expected an integer ≥ 0 in decimal digits, got "-0"',
    );
    expect(messagesOf(() => parseOverride('student.steps=0x10'))[0]).toBe(
      'student.steps: expected a decimal number, got "0x10"',
    );
    expect(messagesOf(() => parseOverride('student.steps=9007199254740993'))[0]).toBe(
      'student.steps: "9007199254740993" is beyond ±9007199254740991, the integers a number holds exactly',
    );
    expect(messagesOf(() => parseOverride('seed.x=1'))[0]).toContain('"seed" is not an object');
    expect(messagesOf(() => applyOverrides(DEFAULT_CONFIG, ['runtime.backend=tpu']))[0]).toContain('runtime.backend');
  });

  it('lists the differing fields of two configs', () => {
    const b = resolveConfig({ student: { gate: { windowSize: 3 } }, seed: 4 });
    expect(configDiff(DEFAULT_CONFIG, b)).toEqual(['seed: 0 ≠ 4', 'student.gate.windowSize: 5 ≠ 3']);
    expect(configDiff(b, b)).toEqual([]);
  });

  it('enumerates dotted leaf keys', () => {
    const keys = configKeys();
    expect(keys).toContain('student.gate.windowSize');
    expect(keys).toContain('evaluation.passK');
    expect(keys).not.toContain('student.gate');
  });
});

describe('evaluation.matchArgEntropy', () => {
  it('is off (null) by default, also in a saved config that predates the key, and accepts a target ≥ 0', () => {
    expect(DEFAULT_CONFIG.evaluation.matchArgEntropy).toBeNull();
    const { matchArgEntropy: _dropped, ...older } = DEFAULT_CONFIG.evaluation;
    expect(validateConfig({ ...DEFAULT_CONFIG, evaluation: older }).evaluation.matchArgEntropy).toBeNull();
    expect(applyOverrides(DEFAULT_CONFIG, ['evaluation.matchArgEntropy=0.75']).evaluation.matchArgEntropy).toBe(0.75);
    expect(applyOverrides(DEFAULT_CONFIG, ['evaluation.matchArgEntropy=null']).evaluation.matchArgEntropy).toBeNull();
  });

  it('rejects a negative or non-numeric target naming the key', () => {
    expect(messagesOf(() => resolveConfig({ evaluation: { matchArgEntropy: -0.1 } }))[0]).toMatch(
      /evaluation\.matchArgEntropy: expected a number ≥ 0 \(got -0\.1\)/,
    );
    expect(messagesOf(() => resolveConfig({ evaluation: { matchArgEntropy: 'high' } }))[0]).toContain(
      'evaluation.matchArgEntropy',
    );
  });
});

describe('--set overrides together', () => {
  it('validates the combination, not each assignment alone (passN then passK)', () => {
    const cfg = applyOverrides(DEFAULT_CONFIG, ['evaluation.passN=4', 'evaluation.passK=[1,4]']);
    expect(cfg.evaluation).toMatchObject({ passN: 4, passK: [1, 4] });
  });
});

describe('saved configs', () => {
  it('a saved config may lack only the keys added later, which take the value their absence always meant', () => {
    const { studentPolicy: _s, teacherPolicy: _t, ...demonstrations } = DEFAULT_CONFIG.demonstrations;
    const { randomFacts: _r, ...env } = DEFAULT_CONFIG.env;
    const older = validateConfig({ ...DEFAULT_CONFIG, env, demonstrations });
    expect(older.demonstrations).toMatchObject({ studentPolicy: 'expert', teacherPolicy: 'expert' });
    expect(older.env.randomFacts).toBe(false);
    // a new config gets the schema's defaults instead
    expect(resolveConfig({}).demonstrations).toMatchObject({
      studentPolicy: 'explorer',
      teacherPolicy: 'skillFollower',
    });
    const { steps: _steps, ...sft } = DEFAULT_CONFIG.sft;
    expect(messagesOf(() => validateConfig({ ...DEFAULT_CONFIG, sft }))[0]).toMatch(/^sft\.steps: .*\(got nothing\)/);
  });
});
