// The lesson's recorded runs ("the instant demo"): the presets of the story, run once on one seed by
// `npm run record-demo` (cli/recordDemo.ts) and shipped under public/demo/<preset>/ as the CLI's own run folder
// files, so the Overview and the Train view can play the story without training. This file is the one place that
// names the seed, the arms and the overrides; the manifest (public/demo/manifest.json) says what was recorded.

/**
 * The seed of every recording: the first reporting seed of the held-out protocol (seedProtocol.ts), so the story a
 * class sees is one of the reported runs, not a seed the presets were tuned on. Change it here and run
 * `npm run record-demo`.
 */
export const DEMO_SEED = 1000;

/** The recorded arms, in the order the Overview draws them (the control last, optional there). */
export const DEMO_ARMS = ['retire-shell', 'opd-shell', 'grpo-shell', 'control-shell'] as const;
export type DemoArm = (typeof DEMO_ARMS)[number];

/** The arms the Overview plays together on one chart. */
export const OVERVIEW_ARMS: readonly DemoArm[] = ['retire-shell', 'opd-shell', 'grpo-shell'];

/**
 * What the recordings change of their presets: the seed, and keeping every periodic checkpoint (the default keeps
 * the newest 3, which would drop the one at retirement before the recorder picks it). Both are applied with
 * `--set`, exactly as a user would, so a recording's config.json is its preset resolved with these lines.
 */
export const DEMO_OVERRIDES: readonly string[] = [`seed=${DEMO_SEED}`, 'runtime.keepCheckpoints=0'];

/** Folder of the recordings below public/ (and below the app's base URL). */
export const DEMO_FOLDER = 'demo';

/** The command that regenerates them (quoted in errors, the README and docs/teaching.md). */
export const RECORD_DEMO_COMMAND = 'npm run record-demo';

/** One shipped file of a recording: its path relative to the recording's folder, and its size in bytes. */
export interface DemoFile {
  path: string;
  bytes: number;
}

export interface DemoArmManifest {
  preset: DemoArm;
  /** the --set lines the run had (DEMO_OVERRIDES when recorded) */
  overrides: string[];
  /** SHA-256 (hex) of config.json as shipped */
  configSha256: string;
  /** the student step at which the teacher retired, or null (never) */
  triggerStep: number | null;
  /** shipped checkpoint folders (checkpoints/<name>/), in run order */
  checkpoints: string[];
  files: DemoFile[];
  bytes: number;
}

export interface DemoManifest {
  seed: number;
  /** the commit the recordings were made at (git rev-parse HEAD; "+dirty" when the tree had changes) */
  commit: string;
  recordedAt: string;
  command: string;
  arms: DemoArmManifest[];
  totalBytes: number;
}

/** The name of a checkpoint (checkpointName.ts) and where it sits in the run (stage, completed steps). */
export interface CheckpointAt {
  name: string;
  stage: string;
  step: number;
}

/**
 * The checkpoints a recording keeps for the trajectory viewer, out of those the run wrote (`written`, in run order):
 * the start of the student stage (the SFT policy, before any student step; else the last checkpoint before it), the
 * first one at or after the teacher's
 * retirement (the checkpoints are every runtime.checkpointEvery steps, so it is the nearest after the trigger), and
 * the last one (the end of the run). Duplicates collapse; the order is the run's.
 */
export function demoCheckpoints(written: readonly CheckpointAt[], triggerStep: number | null): string[] {
  const student = written.filter((c) => c.stage === 'student');
  const picks = new Set<string>();
  // a run without a teacher stage writes no student-000000: the last checkpoint before the student stage holds the
  // same policy (π_init, the SFT policy)
  const start =
    student.find((c) => c.step === 0) ?? written.filter((c) => c.stage === 'sft' || c.stage === 'teacher').at(-1);
  if (start) picks.add(start.name);
  if (triggerStep !== null) {
    const atRetirement = student.find((c) => c.step >= triggerStep);
    if (atRetirement) picks.add(atRetirement.name);
  }
  const last = student.at(-1);
  if (last) picks.add(last.name);
  return written.filter((c) => picks.has(c.name)).map((c) => c.name);
}

/** A config without what does not change what a run computes: its name and how it runs (backend, checkpoints). */
function trainingPart(config: object): string {
  const { name: _name, runtime: _runtime, ...rest } = config as { name?: unknown; runtime?: unknown };
  return JSON.stringify(rest, Object.keys(flatKeys(rest)).sort());
}

/** Every key name in a JSON tree (for a stable key order in trainingPart). */
function flatKeys(tree: unknown, out: Record<string, true> = {}): Record<string, true> {
  if (tree && typeof tree === 'object')
    for (const [k, v] of Object.entries(tree)) {
      out[k] = true;
      flatKeys(v, out);
    }
  return out;
}

/**
 * Whether a run with config `live` trains what the recording with config `recorded` trained (same keys and values
 * apart from the name and runtime.*): the Train view then draws the recording faintly behind the live curves.
 */
export function trainsLikeRecording(live: object, recorded: object): boolean {
  return trainingPart(live) === trainingPart(recorded);
}
