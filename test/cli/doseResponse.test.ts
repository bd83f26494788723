// The dose–response page over a sweep folder (cli/doseResponse.ts): RetireOPD and OPD-throughout runs paired on the
// seed per misleading fraction, the slope over seeds, and the cells written beside the page as JSON.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { doseResponse } from '../../cli/doseResponse';
import { applyOverrides } from '../../src/core/experiment/config';
import { DEFAULT_CONFIG } from '../../src/core/experiment/configSchema';

const dir = mkdtempSync(join(tmpdir(), 'dose-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(
  schedule: string,
  fraction: number,
  seed: number,
  success: number,
  world = 1,
  trigger = 100,
  folderName = `world${world}`,
): void {
  const folder = join(dir, folderName);
  const d = join(folder, `${schedule}_${fraction}_seed-${seed}`);
  mkdirSync(d, { recursive: true });
  const cfg = applyOverrides(DEFAULT_CONFIG, [
    `student.schedule=${schedule}`,
    `env.misleadingSkillFraction=${fraction}`,
    `env.seed=${world}`,
    `seed=${seed}`,
  ]);
  writeFileSync(join(d, 'config.json'), JSON.stringify(cfg));
  const retired = schedule === 'adaptive';
  writeFileSync(
    join(d, 'summary.json'),
    JSON.stringify({
      seed,
      status: 'completed',
      test: { successRate: success },
      teacherPerformance: 1 - fraction,
      gate: { retired, triggerStep: retired ? trigger + seed : null },
    }),
  );
}

describe('the dose–response command', () => {
  it('pairs the arms per error level on the seed and writes the page and its cells', async () => {
    // differences (points): fraction 0 → seed 1: 0, seed 2: +10; fraction 0.5 → seed 1: +10, seed 2: +30
    run('adaptive', 0, 1, 0.5);
    run('never', 0, 1, 0.5);
    run('adaptive', 0, 2, 0.6);
    run('never', 0, 2, 0.5);
    run('adaptive', 0.5, 1, 0.4);
    run('never', 0.5, 1, 0.3);
    run('adaptive', 0.5, 2, 0.6);
    run('never', 0.5, 2, 0.3);
    const env = DEFAULT_CONFIG.env.name;
    const out = join(dir, 'page.md');
    const io = { stdout: () => undefined, stderr: () => undefined };
    expect(await doseResponse(['--dir', join(dir, 'world1'), '--env', env, '--out', out], io)).toBe(0);
    const page = readFileSync(out, 'utf8');
    // slopes: seed 1 (0 → 10 over 0.5) = 20 points per unit = +2.0 per 10 %; seed 2 (10 → 30) = 40 = +4.0 per 10 %
    expect(page).toContain('| 1 | +2.0 | +0.0 |');
    expect(page).toContain('| 2 | +4.0 | +10.0 |');
    expect(page).toMatch(/Slope over seeds in world 1: \+3\.0 ± /);
    const shipped = JSON.parse(readFileSync(join(dir, 'page.json'), 'utf8')) as {
      page: string;
      cells: { misleadingFraction: number; source: string; runIds: string[] }[];
    };
    expect(shipped.cells.map((c) => c.misleadingFraction)).toEqual([0, 0.5]);
    // as the tab's map ships them: the page as their source, no stored run ids
    expect(shipped.cells.every((c) => c.source === shipped.page && c.runIds.length === 0)).toBe(true);
    expect(shipped.page).toMatch(/page\.md$/);
  });

  it('adds a second world’s folder and an earlier page’s cells, and pools the slope over worlds', async () => {
    // world 2 at fractions 0 and 0.5: seed 1 differences 0 → −10, seed 2: 0 → −10 (slope −20 per unit each)
    run('adaptive', 0, 1, 0.5, 2, 50);
    run('never', 0, 1, 0.5, 2);
    run('adaptive', 0, 2, 0.5, 2, 50);
    run('never', 0, 2, 0.5, 2);
    run('adaptive', 0.5, 1, 0.4, 2, 50);
    run('never', 0.5, 1, 0.5, 2);
    run('adaptive', 0.5, 2, 0.4, 2, 50);
    run('never', 0.5, 2, 0.5, 2);
    const env = DEFAULT_CONFIG.env.name;
    const io = { stdout: () => undefined, stderr: () => undefined };
    // world 1 now only as the first test's cells file: its folder is not read again
    const out = join(dir, 'both.md');
    const argv = ['--dir', join(dir, 'world2'), '--cells', join(dir, 'page.json'), '--env', env, '--out', out];
    expect(await doseResponse(argv, io)).toBe(0);
    const page = readFileSync(out, 'utf8');
    // world 1 slopes +2.0 and +4.0 per 10 % (mean +3.0), world 2 −2.0 and −2.0 (mean −2.0): over worlds +0.5
    expect(page).toContain('## World 1 (env.seed 1)');
    expect(page).toContain('## World 2 (env.seed 2)');
    expect(page).toMatch(/\*\*Slope over worlds: \+0\.5 ± .* \(n = 2 worlds; no measurable slope\)/);
    // S_T and the gate from world 2's runs: S_T 1 − fraction, both RetireOPD runs retired at 51 and 52
    expect(page).toContain('| 2 | 0.5 | 50.0 % | 2 of 2 | 51–52 |');
    const shipped = JSON.parse(readFileSync(join(dir, 'both.json'), 'utf8')) as {
      cells: { world: number; misleadingFraction: number }[];
      teachers: { world: number }[];
    };
    expect(shipped.cells.map((c) => [c.world, c.misleadingFraction])).toEqual([
      [1, 0],
      [1, 0.5],
      [2, 0],
      [2, 0.5],
    ]);
    expect(shipped.teachers.map((t) => t.world)).toEqual([1, 1, 2, 2]);
  });

  it("adds a folder's new seeds to an earlier page's cell, the folder's difference winning for a seed both measured", async () => {
    const env = DEFAULT_CONFIG.env.name;
    const io = { stdout: () => undefined, stderr: () => undefined };
    // the earlier page: world 3 at 0.5, seed 1 +10, seed 2 +20
    run('adaptive', 0.5, 1, 0.5, 3);
    run('never', 0.5, 1, 0.4, 3);
    run('adaptive', 0.5, 2, 0.6, 3);
    run('never', 0.5, 2, 0.4, 3);
    expect(await doseResponse(['--dir', join(dir, 'world3'), '--env', env, '--out', join(dir, 'w3.md')], io)).toBe(0);
    // its folder gone; a new one measures seed 2 again (+30) and seed 3 (0)
    run('adaptive', 0.5, 2, 0.7, 3, 100, 'world3-more');
    run('never', 0.5, 2, 0.4, 3, 100, 'world3-more');
    run('adaptive', 0.5, 3, 0.4, 3, 100, 'world3-more');
    run('never', 0.5, 3, 0.4, 3, 100, 'world3-more');
    const argv = ['--dir', join(dir, 'world3-more'), '--cells', join(dir, 'w3.json'), '--env', env];
    expect(await doseResponse([...argv, '--out', join(dir, 'w3-more.md')], io)).toBe(0);
    const shipped = JSON.parse(readFileSync(join(dir, 'w3-more.json'), 'utf8')) as {
      cells: {
        n: number;
        mean: number;
        halfWidth: number;
        perSeed: { seed: number; difference: number }[];
        note: string;
      }[];
    };
    expect(shipped.cells).toHaveLength(1);
    const [cell] = shipped.cells;
    expect(cell!.perSeed.map((p) => [p.seed, Math.round(p.difference * 1e6) / 1e6])).toEqual([
      [1, 10],
      [2, 30],
      [3, 0],
    ]);
    // [10, 30, 0]: mean 13.333; sd √(466.67 / 2) = 15.275; t(0.975, 2) = 4.3027 → half-width 37.95
    expect(cell!.n).toBe(3);
    expect(cell!.mean).toBeCloseTo(13.3333, 3);
    expect(cell!.halfWidth).toBeCloseTo(37.95, 1);
  });

  it('sets the competence-only gate beside the two arms where the sweep ran it, and carries it in the cells file', async () => {
    // world 3, success (adaptive, never, competence-only) per seed:
    // fraction 0   → seed 1: 0.5, 0.5, 0.4; seed 2: 0.6, 0.5, 0.5
    // fraction 0.5 → seed 1: 0.4, 0.3, 0.2; seed 2: 0.6, 0.3, 0.4
    const rows: [number, number, number, number, number][] = [
      [0, 1, 0.5, 0.5, 0.4],
      [0, 2, 0.6, 0.5, 0.5],
      [0.5, 1, 0.4, 0.3, 0.2],
      [0.5, 2, 0.6, 0.3, 0.4],
    ];
    for (const [fraction, seed, adaptive, never, competence] of rows) {
      run('adaptive', fraction, seed, adaptive, 3);
      run('never', fraction, seed, never, 3);
      run('competence-only', fraction, seed, competence, 3);
    }
    const env = DEFAULT_CONFIG.env.name;
    const io = { stdout: () => undefined, stderr: () => undefined };
    const out = join(dir, 'third.md');
    expect(await doseResponse(['--dir', join(dir, 'world3'), '--env', env, '--out', out], io)).toBe(0);
    const page = readFileSync(out, 'utf8');
    expect(page).toContain('## The competence-only gate as a third arm');
    // competence-only − never: −10 and 0 at 0 (mean −5.0), −10 and +10 at 0.5; adaptive − competence-only: +10, +10
    // and +20, +20 (no spread: half-width 0)
    expect(page).toMatch(
      /\| 3 \| 0 \| \+5\.0 ± [\d.]+ \(n = 2;[^|]*\| −5\.0 ± [\d.]+ \(n = 2;[^|]*\| \+10\.0 ± 0\.0 \(n = 2;/,
    );
    expect(page).toMatch(
      /\| 3 \| 0\.5 \| \+20\.0 ± [\d.]+ \(n = 2;[^|]*\| \+0\.0 ± [\d.]+ \(n = 2;[^|]*\| \+20\.0 ± 0\.0 \(n = 2;/,
    );
    // per-seed slopes of competence-only − never: seed 1 −10 → −10 (0), seed 2 0 → +10 (+2.0 per 10 %): mean +1.0
    expect(page).toMatch(/\*\*Slope of competence-only − OPD throughout in world 3: \+1\.0 ± /);
    // the map's cells stay adaptive − never only; the third arm travels beside them
    const shipped = JSON.parse(readFileSync(join(dir, 'third.json'), 'utf8')) as {
      cells: { mean: number }[];
      competenceOnly: { vsOpd: { misleadingFraction: number; mean: number }[]; adaptiveVs: unknown[] };
    };
    expect(shipped.cells.map((c) => Math.round(c.mean))).toEqual([5, 20]);
    expect(shipped.competenceOnly.vsOpd.map((c) => [c.misleadingFraction, Math.round(c.mean)])).toEqual([
      [0, -5],
      [0.5, 0],
    ]);
    // regenerated from the cells file alone, the section is still there
    const again = join(dir, 'third-again.md');
    expect(await doseResponse(['--cells', join(dir, 'third.json'), '--env', env, '--out', again], io)).toBe(0);
    expect(readFileSync(again, 'utf8')).toContain('| 3 | 0.5 | +20.0 ±');
  });

  it('refuses a cells file that is not one, naming it', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"rows": []}');
    const io = { stdout: () => undefined, stderr: () => undefined };
    await expect(doseResponse(['--cells', bad, '--env', 'shell'], io)).rejects.toThrow(/--cells .*bad\.json: expected/);
  });
});
