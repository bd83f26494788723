import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/experiment/config';
import { loadPreset, PRESET_NAMES } from '../../../src/core/experiment/preset';
import { compareRuns, formatComparisonTable } from '../../../src/core/experiment/comparison';
import { expandSweep, parseSweepSpec } from '../../../src/core/experiment/sweep';
import type { RunSummary } from '../../../src/core/experiment/summary';
import { PRESET_DIR, lookupPreset } from '../../support/presets';

const dir = PRESET_DIR;
const lookup = lookupPreset;

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('presets', () => {
  it('ships exactly the listed presets, and index.json lists them', () => {
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.json') && f !== 'index.json')
      .map((f) => f.slice(0, -5));
    expect(files.sort()).toEqual([...PRESET_NAMES].sort());
    expect(JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'))).toEqual([...PRESET_NAMES]);
  });

  it.each([...PRESET_NAMES])('preset %s validates', (name) => {
    const p = loadPreset(name, lookup);
    expect(p.config.name).toBe(name);
    expect(p.description.length).toBeGreaterThan(20);
    // the description is shown in the Train view: no tracker words ("issue" or "#" and a number)
    expect(p.description).not.toMatch(/\bissues?\s*#?\d+|#\d+\b/i);
  });

  it('sweep presets expand to every axis value for every seed', () => {
    const p = loadPreset('schedules', lookup);
    expect(p.sweep).not.toBeNull();
    const runs = expandSweep(p.config, p.sweep!);
    expect(runs).toHaveLength(7 * 3);
    expect(runs[0]!.label).toBe('student.schedule=adaptive seed=0');
    expect(runs[4]!.config.student.schedule).toBe('never');
    expect(runs[4]!.config.seed).toBe(1);
  });

  it('names the unknown preset and lists the available ones', () => {
    const e = errorOf(() => loadPreset('smok', lookup));
    expect(e.message).toContain('unknown preset "smok" (available: smoke, retire-shell');
  });

  it('refuses a preset name or "extends" that is a path or a URL, and a teacher.checkpoint that is a URL', () => {
    expect(errorOf(() => loadPreset('../secrets', lookup)).message).toBe(
      'preset: preset name "../secrets": expected lower-case letters, digits and "-" (a preset of public/presets/, ' +
        'not a path or URL)',
    );
    const far = (name: string) =>
      name === 'x' ? { description: 'a test preset here', extends: 'http://OTHER-HOST/p', config: {} } : lookup(name);
    expect(errorOf(() => loadPreset('x', far)).message).toMatch(
      /^preset x "extends": preset name "http:\/\/OTHER-HOST/,
    );
    const teacher = (name: string) =>
      name === 'x'
        ? { description: 'a test preset here', config: { teacher: { checkpoint: 'https://OTHER-HOST/t' } } }
        : lookup(name);
    expect(errorOf(() => loadPreset('x', teacher)).message).toMatch(
      /^preset x: teacher\.checkpoint: expected a file path, not a URL or a scheme \(https:\)/,
    );
  });

  it('rejects unknown keys in a preset file and invalid config values inside it', () => {
    const bad = (name: string) => (name === 'x' ? { description: 'a test preset here', confg: {} } : lookup(name));
    expect(errorOf(() => loadPreset('x', bad)).message).toContain('unknown key(s) "confg"');
    const bad2 = (name: string) =>
      name === 'y' ? { description: 'a test preset here', config: { student: { steps: -2 } } } : lookup(name);
    expect(errorOf(() => loadPreset('y', bad2)).message).toMatch(/preset y: student\.steps: expected an integer ≥ 0/);
  });

  it('rejects a sweep axis with an unknown key or an invalid value before any run', () => {
    const base = loadPreset('smoke', lookup).config;
    expect(
      errorOf(() => parseSweepSpec({ seeds: [0], axes: { 'student.shedule': ['never'] } }, base)).message,
    ).toContain('unknown key "student.shedule"');
    expect(
      errorOf(() => parseSweepSpec({ seeds: [0], axes: { 'student.estimator': ['k3', 'k4'] } }, base)).message,
    ).toContain('value "k4"');
  });

  it('formats a comparison table with mean ± the 95 % interval over seeds', () => {
    const s = (success: number, trigger: number | null): RunSummary =>
      ({
        test: { successRate: success },
        gate: { triggerStep: trigger, teacherForwardSkipped: trigger === null ? 0 : 10 },
        wallSeconds: 2,
      }) as unknown as RunSummary;
    const rows = compareRuns([
      { point: { 'student.schedule': 'adaptive' }, summary: s(0.5, 10) },
      { point: { 'student.schedule': 'adaptive' }, summary: s(0.7, 15) },
      { point: { 'student.schedule': 'never' }, summary: s(0.4, null) },
    ]);
    expect(rows[0]!.successMean).toBeCloseTo(0.6, 12);
    expect(rows[0]!.successStd).toBeCloseTo(Math.sqrt(0.02), 12); // (0.1² + 0.1²)/(2−1)
    const table = formatComparisonTable(rows);
    // two seeds: t(1 dof) = 12.706, half-width 12.706 · 0.1414 / √2 = 127.1 points (two seeds say little)
    expect(table).toContain('| adaptive | 2 | 60.0 ± 127.1 | –, – | 10, 15 | 10.0 | 2.0 |');
    // one seed: no interval to give
    expect(table).toContain('| never | 1 | 40.0 ± – | – | – | 0.0 | 2.0 |');
  });

  it('tells the story on one budget: retire/opd/grpo differ only in the schedule, control only in randomFacts, every env alike', () => {
    const of = (n: string) => loadPreset(n, lookup).config;
    for (const env of ['shell', 'house', 'shop']) {
      const retire = of(`retire-${env}`);
      expect(retire.student.schedule).toBe('adaptive');
      // one student step budget for every environment's trio (the README's story tables compare across them)
      expect(retire.student.steps).toBe(of('retire-shell').student.steps);
      expect(retire.student.validationTasks).toBeGreaterThanOrEqual(128);
      expect(retire.demonstrations).toMatchObject({ studentPolicy: 'explorer', teacherPolicy: 'skillFollower' });
      for (const [arm, schedule] of [
        ['opd', 'never'],
        ['grpo', 'none'],
      ] as const) {
        const c = of(`${arm}-${env}`);
        expect({ ...c, name: retire.name, student: { ...c.student, schedule: 'adaptive' } }).toEqual(retire);
        expect(c.student.schedule).toBe(schedule);
      }
    }
    const control = of('control-shell');
    expect(control.env.randomFacts).toBe(true);
    expect({ ...control, name: 'retire-shell', env: { ...control.env, randomFacts: false } }).toEqual(
      of('retire-shell'),
    );
  });
});
