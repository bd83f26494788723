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

function run(schedule: string, fraction: number, seed: number, success: number): void {
  const d = join(dir, `${schedule}_${fraction}_seed-${seed}`);
  mkdirSync(d);
  const cfg = applyOverrides(DEFAULT_CONFIG, [
    `student.schedule=${schedule}`,
    `env.misleadingSkillFraction=${fraction}`,
    `seed=${seed}`,
  ]);
  writeFileSync(join(d, 'config.json'), JSON.stringify(cfg));
  writeFileSync(join(d, 'summary.json'), JSON.stringify({ seed, status: 'completed', test: { successRate: success } }));
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
    expect(await doseResponse(['--dir', dir, '--env', env, '--out', out], io)).toBe(0);
    const page = readFileSync(out, 'utf8');
    // slopes: seed 1 (0 → 10 over 0.5) = 20 points per unit = +2.0 per 10 %; seed 2 (10 → 30) = 40 = +4.0 per 10 %
    expect(page).toContain('| 1 | +2.0 | +0.0 |');
    expect(page).toContain('| 2 | +4.0 | +10.0 |');
    expect(page).toMatch(/Slope over seeds: \+3\.0 ± /);
    const shipped = JSON.parse(readFileSync(join(dir, 'page.json'), 'utf8')) as {
      page: string;
      cells: { misleadingFraction: number; source: string; runIds: string[] }[];
    };
    expect(shipped.cells.map((c) => c.misleadingFraction)).toEqual([0, 0.5]);
    // as the tab's map ships them: the page as their source, no stored run ids
    expect(shipped.cells.every((c) => c.source === shipped.page && c.runIds.length === 0)).toBe(true);
    expect(shipped.page).toMatch(/page\.md$/);
  });
});
