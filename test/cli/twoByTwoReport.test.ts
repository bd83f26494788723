// The 2 × 2 factorial page over a sweep folder (cli/twoByTwoReport.ts): runs grouped by two keys' levels, paired on
// the seed, and each run's teacher-phase clip statistics read from its metrics.jsonl.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFactor, teacherPhaseClip, twoByTwoReport } from '../../cli/twoByTwoReport';
import { applyOverrides } from '../../src/core/experiment/config';
import { DEFAULT_CONFIG } from '../../src/core/experiment/configSchema';

const dir = mkdtempSync(join(tmpdir(), 'two-by-two-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const io = { stdout: () => undefined, stderr: () => undefined };

/** A finished run: two teacher-phase steps (norms 2 and 0.5, the first clipped), then one after retirement. */
function run(lambda: string, clip: string, seed: number, success: number): void {
  const d = join(dir, `l${lambda}_c${clip}_s${seed}`);
  mkdirSync(d);
  const cfg = applyOverrides(DEFAULT_CONFIG, [
    `student.lambdaOpd=${lambda}`,
    `student.grpo.gradClip=${clip}`,
    `seed=${seed}`,
  ]);
  writeFileSync(join(d, 'config.json'), JSON.stringify(cfg));
  writeFileSync(join(d, 'summary.json'), JSON.stringify({ seed, status: 'completed', test: { successRate: success } }));
  const on = clip !== '0';
  const rows = [
    {
      step: 1,
      'retire_opd/opd_coef': 1,
      'actor/grad_norm': 2,
      'actor/grad_clipped': on ? 1 : 0,
      'actor/grad_clip_coef': on ? 0.5 : 1,
    },
    { step: 2, 'retire_opd/opd_coef': 1, 'actor/grad_norm': 0.5, 'actor/grad_clipped': 0, 'actor/grad_clip_coef': 1 },
    {
      step: 3,
      'retire_opd/opd_coef': 0,
      'actor/grad_norm': 9,
      'actor/grad_clipped': on ? 1 : 0,
      'actor/grad_clip_coef': 0.1,
    },
  ];
  writeFileSync(join(d, 'metrics.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

describe('the 2 × 2 factorial command', () => {
  it('pairs the four combinations on the seed and reads the clip’s teacher-phase action from each run log', async () => {
    for (const [seed, base] of [
      [1, 0.5],
      [2, 0.3],
    ] as const) {
      run('0.1', '1', seed, base);
      run('1', '1', seed, base + 0.2);
      run('0.1', '0', seed, base);
      run('1', '0', seed, base + 0.2);
    }
    const out = join(dir, 'page.md');
    const argv = ['--dir', dir, '--a', 'student.lambdaOpd=0.1,1', '--b', 'student.grpo.gradClip=1,0'];
    expect(await twoByTwoReport([...argv, '--a-name', 'λ_opd', '--b-name', 'grad clip', '--out', out], io)).toBe(0);
    const page = readFileSync(out, 'utf8');
    // λ 1 − 0.1 is +20 on both seeds at both clip levels: zero spread, so a zero-width interval
    expect(page).toContain('| λ_opd 1 − 0.1, grad clip 1 | +20.0 ± 0.0 (measurably positive) | +20.0, +20.0 |');
    expect(page).toContain('| interaction (λ_opd’s effect at grad clip 0 minus at 1) | +0.0 ± 0.0');
    // teacher phase = steps 1–2: clipped on half of them with the clip on (factor (0.5 + 1) / 2), never with it off;
    // the norm exceeded 1 on half of them either way
    expect(page).toContain('| 1 | 1 | 50 % | 0.75 | 50 % |');
    expect(page).toContain('| 1 | 0 | 0 % | 1.00 | 50 % |');
  });

  it('reads KEY=L0,L1 and refuses anything else, naming the flag', () => {
    expect(parseFactor('a', 'student.lambdaOpd=0.1,1')).toEqual({ key: 'student.lambdaOpd', levels: ['0.1', '1'] });
    expect(() => parseFactor('b', 'student.grpo.gradClip=1')).toThrow(/--b: expected KEY=LEVEL0,LEVEL1/);
  });

  it('names the file and line of a run log line that is not JSON', () => {
    const f = join(dir, 'bad.jsonl');
    writeFileSync(f, '{"step":1}\n{oops\n');
    expect(() => teacherPhaseClip(f, 1)).toThrow(`${f}:2: not a JSON line`);
  });
});
