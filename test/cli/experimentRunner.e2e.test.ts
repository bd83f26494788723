// A run is called "completed" only when its logs replay to it (cli/experimentRunner.ts): a tiny smoke run whose
// metrics.jsonl gets a second writer's line while it trains ends refused, naming FILE:LINE, with its summary kept.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runExperiment } from '../../cli/experimentRunner';
import { readPreset } from '../../cli/presetFiles';
import { RunFolder } from '../../cli/runFolder';
import { CheckpointError } from '../../src/core/errors';
import { applyOverrides } from '../../src/core/experiment/config';
import type { TrainerEvent } from '../../src/engine/trainer/events';
import { TINY } from '../fuzz/cliFuzzHarness';

const tmp = mkdtempSync(join(tmpdir(), 'experiment-runner-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the finished run', () => {
  it('is refused as completed when its student log holds a step twice (another writer), naming metrics.jsonl:LINE', async () => {
    const config = applyOverrides(readPreset('smoke').config, [...TINY, 'student.steps=4']);
    const dir = join(tmp, 'two-writers');
    const folder = RunFolder.create(dir, config);
    const record = folder.record.bind(folder);
    // a second writer appends its own step 2 right after this run's step 2
    folder.record = (e: TrainerEvent): void => {
      record(e);
      if (e.type === 'step' && e.stage === 'student' && e.step === 2) folder.appendLine('metrics.jsonl', e.metrics);
    };
    try {
      const run = runExperiment({ folder, config, resume: null, progress: false, log: () => undefined });
      await expect(run).rejects.toThrow(CheckpointError);
      await expect(run).rejects.toThrow(
        `${join(dir, 'metrics.jsonl')}:3: step 2 again after step 2 (expected step 3: duplicated or out of order), but the finished run has done 4 student step(s)`,
      );
      // what the run computed is kept
      expect(existsSync(join(dir, 'summary.json'))).toBe(true);
    } finally {
      folder.release();
    }
  });
});
