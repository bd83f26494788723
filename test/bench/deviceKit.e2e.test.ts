// bench/device/kit.sh builds the bundle a GPU machine runs (it has Node but no node_modules); a session lent a GPU
// has minutes, so the kit must already work when one comes. Built here into a temporary folder (hence e2e: it spawns
// bash, esbuild and node): the commands start from the bundle alone, and the wasm backend finds its binaries beside
// it, from a working folder that has no node_modules.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const tmp = mkdtempSync(join(tmpdir(), 'device-kit-'));
const kit = join(tmp, 'kit');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const node = (args: string[]): string =>
  execFileSync(process.execPath, args, { cwd: tmp, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('the device kit', () => {
  it('bundles the bench, experiment and sweep commands and the member-axis bench with Dawn’s addon and the wasm binaries beside them', () => {
    execFileSync('bash', [join(root, 'bench/device/kit.sh')], {
      cwd: root,
      env: { ...process.env, KIT_DIR: kit, KIT_NO_GL: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const f of [
      'now/cli/bench.mjs',
      'now/cli/experiment.mjs',
      'now/cli/sweep.mjs',
      'now/bench/memberBatching.mjs',
      'node_modules/webgpu/dist/linux-x64/dawn.node',
      'node_modules/@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm',
      'now/public/presets/retire-shell.json', // the CLIs find public/ beside cli/: a link to the checkout's
    ])
      expect(existsSync(join(kit, f)), f).toBe(true);
    expect(readFileSync(join(kit, 'now/COMMIT'), 'utf8')).toMatch(/^[0-9a-f]{40}\n/);
    expect(existsSync(join(kit, 'before')), 'no baseline was asked for').toBe(false);
  }, 120_000);

  it('runs each command from the bundle alone: usage lines, a cut smoke run, one wasm loss step and the member-axis bench', () => {
    expect(node([join(kit, 'now/cli/experiment.mjs'), '--help'])).toMatch(
      /^usage: npm run experiment -- --preset NAME/,
    );
    expect(node([join(kit, 'now/cli/sweep.mjs'), '--help'])).toMatch(/^usage: npm run sweep -- --preset NAME/);
    const run = node([
      join(kit, 'now/cli/experiment.mjs'),
      ...['--preset', 'smoke', '--seed', '2', '--backend', 'wasm', '--no-progress', '--out', join(tmp, 'smoke')],
      ...['--set', 'sft.steps=2', '--set', 'teacher.steps=3', '--set', 'student.steps=6'],
    ]);
    expect(run).toMatch(/^completed: test success/m);
    expect(existsSync(join(tmp, 'smoke', 'summary.json'))).toBe(true);
    const out = node([
      join(kit, 'now/cli/bench.mjs'),
      ...['--backends', 'wasm', '--workloads', 'loss', '--steps', '1', '--warmup', '1'],
    ]);
    const report = JSON.parse(out) as { backend: string; loss_path: { medianMs: number } }; // stdout is pure JSON
    expect(report.backend).toBe('wasm');
    expect(report.loss_path.medianMs).toBeGreaterThan(0);
    // the member-axis bench, from its own bundle: one population size, its row of the table
    const members = node([
      join(kit, 'now/bench/memberBatching.mjs'),
      '--backend',
      'wasm',
      '--members',
      '1',
      '--steps',
      '1',
      '--repeats',
      '1',
    ]);
    expect(members).toMatch(/^backend wasm, tfjs 4\.22\.0;/);
    // train, rollout, member-axis step, member-axis rollout: times, shares, programs and readbacks
    expect(members).toMatch(
      /^\| 1 \| [0-9.]+ \| 1\.00 \| [0-9.]+ \| 1\.00 \| [0-9.]+ \| [0-9.]+ \| \d+ \/ \d+ \| [0-9.]+ \| [0-9.]+ \| \d+ \/ \d+ \| \d+ \/ \d+ \|$/m,
    );
  }, 240_000);
});
