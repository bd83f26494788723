// A sweep's prefix fork (docs/ablations.md, "Shared prefixes"): a run whose config has the same prefix key
// (core/experiment/configPrefix.ts) as a finished run of the sweep — its leader — does not redo the demonstrations,
// SFT and teacher stages. Its run folder gets what the leader wrote up to the stage-end checkpoint before the student
// stage (the sft/teacher logs, events.jsonl up to that checkpoint's line, the checkpoints up to it, their state.json
// rewritten with this run's config and resealed), its own config.json, and the checkpoint to continue from; the trainer then runs the student stage and the evaluation under
// the run's own config, exactly as the run made alone would (the per-stage RNG scheme of
// src/engine/trainer/seeds.ts). Node only.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError, withFsErrors } from '../src/core/errors';
import { resolveConfig, type ExperimentConfig } from '../src/core/experiment/config';
import { forkPointOf, prefixKeyOf } from '../src/core/experiment/configPrefix';
import { checkpointName, checkpointRunOrder } from '../src/core/runLog/checkpointName';
import { withCheckpointConfig, type CheckpointContent } from '../src/engine/trainer/checkpoint';
import type { TrainerState } from '../src/engine/trainer/trainerState';
import { loadRunCheckpoint } from './experimentRunner';
import { metricsFileFor, RunFolder } from './runFolder';

/** The logs of the stages before the student stage: copied whole (the leader wrote them before its fork point). */
const PREFIX_LOGS = [metricsFileFor('sft'), metricsFileFor('teacher')];

/**
 * Create the run folder `dir` for `config` as a fork of the leader's run folder `leaderDir` (same prefix key, its
 * fork-point checkpoint present) and return the checkpoint to resume from. Throws CheckpointError when the leader's
 * checkpoint is missing or has another prefix.
 */
export async function forkRunFolder(
  leaderDir: string,
  dir: string,
  config: ExperimentConfig,
): Promise<{ folder: RunFolder; resume: CheckpointContent<TrainerState> }> {
  const at = forkPointOf(config);
  const forkName = checkpointName(at.stage, at.step);
  const leader = RunFolder.open(leaderDir).folder;
  // checked before anything is written: the leader's fork point, under this run's config (prefix equality)
  await loadRunCheckpoint(leader, forkName, config, true);
  const events = eventsUpTo(join(leaderDir, 'events.jsonl'), forkName);
  const folder = RunFolder.create(dir, config);
  for (const file of PREFIX_LOGS) {
    const from = join(leaderDir, file);
    if (!existsSync(from)) continue;
    const text = withFsErrors(from, 'reading the leader run log', () => readFileSync(from, 'utf8'));
    const to = join(dir, file);
    withFsErrors(to, 'writing the forked run log', () => writeFileSync(to, text));
  }
  const eventsPath = join(dir, 'events.jsonl');
  withFsErrors(eventsPath, 'writing the forked events', () => writeFileSync(eventsPath, events));
  // the leader's checkpoints up to the fork point, oldest first, so that LATEST ends at the fork point
  const order = checkpointRunOrder(forkName);
  const names = (await leader.checkpoints.list())
    .filter((n) => checkpointRunOrder(n) >= 0 && checkpointRunOrder(n) <= order)
    .sort((a, b) => checkpointRunOrder(a) - checkpointRunOrder(b));
  for (const name of names) {
    const files = await leader.checkpoints.read(name);
    if (files)
      await folder.checkpoints.write(
        name,
        await withCheckpointConfig(
          files,
          config,
          `${leaderDir}/checkpoints/${name}`,
          folder.checkpoints.sha256.bind(folder.checkpoints),
        ),
      );
  }
  // the folder's own copy now holds its own config: it resumes (now, and after a crash) like any run folder
  const resume = await loadRunCheckpoint(folder, forkName, config);
  return { folder, resume };
}

/** The text of the leader's events.jsonl up to and including the line of its fork-point checkpoint. */
function eventsUpTo(from: string, forkName: string): string {
  const lines = withFsErrors(from, 'reading the leader events', () => readFileSync(from, 'utf8'))
    .split('\n')
    .filter((l) => l.trim() !== '');
  const end = lines.findIndex((l) => {
    try {
      const e = JSON.parse(l) as { type?: unknown; name?: unknown };
      return e.type === 'checkpoint' && e.name === forkName;
    } catch {
      return false;
    }
  });
  if (end < 0) throw new CheckpointError(`${from}: no line for checkpoint ${forkName}, the fork point of this run`);
  return lines
    .slice(0, end + 1)
    .map((l) => `${l}\n`)
    .join('');
}

/**
 * Leaders found on disk: every completed run folder (config.json, summary.json with status completed) one or two
 * levels below `root` (a sweep folder, or a protocol folder of sweep folders), by its config's prefix key; the
 * first in name order wins. A folder that cannot be read is skipped (it is nobody's leader).
 */
export function leadersUnder(root: string): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (dir: string, depth: number): void => {
    let names: string[];
    try {
      names = readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && d.name !== 'checkpoints')
        .map((d) => d.name)
        .sort();
    } catch {
      return;
    }
    for (const name of names) {
      const runDir = join(dir, name);
      const key = completedPrefixKey(runDir);
      if (key !== null) {
        if (!found.has(key)) found.set(key, runDir);
      } else if (depth > 1) visit(runDir, depth - 1);
    }
  };
  visit(root, 2);
  return found;
}

/** The prefix key of a completed run folder's config, or null (not a run, not completed, unreadable). */
function completedPrefixKey(runDir: string): string | null {
  try {
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as { status?: unknown };
    if (summary.status !== 'completed') return null;
    const raw: unknown = JSON.parse(readFileSync(join(runDir, 'config.json'), 'utf8'));
    return prefixKeyOf(resolveConfig(raw, undefined, join(runDir, 'config.json')));
  } catch {
    return null;
  }
}
