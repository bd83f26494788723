// The held-out protocol's runs: which arms, each as one `npm run sweep` invocation writing one sweep folder under the
// protocol folder. The story arms (RetireOPD, OPD throughout, pure GRPO, the negative control) and the ablations:
// fixed:N with N matched per seed to that seed's RetireOPD trigger step (one sweep per seed, planned once the
// RetireOPD runs exist), the competence-only and alignment-only gates, no misleading skill entries
// (env.misleadingSkillFraction = 0, RetireOPD and OPD throughout), and λ_opd ∈ {0.01, 0.1} under the adaptive gate
// (λ_opd = 1 is the RetireOPD arm itself). Pure: cli/protocol.ts runs or prints the plan.

/** The protocol's arms: the folder name under the protocol folder is the arm id (fixed:N: `fixed-<seed>`). */
export const STORY_ARMS = ['retire', 'opd', 'grpo', 'control'] as const;
export const ABLATION_ARMS = [
  'competence-only',
  'alignment-only',
  'misleading0-retire',
  'misleading0-opd',
  'lambda',
] as const;
export type StoryArm = (typeof STORY_ARMS)[number];
export type AblationArm = (typeof ABLATION_ARMS)[number];

/** What each arm is, in the report's words. */
export const ARM_TITLES: Record<StoryArm | AblationArm | 'fixed', string> = {
  retire: 'RetireOPD (adaptive gate)',
  opd: 'OPD throughout',
  grpo: 'pure GRPO',
  control: 'negative control (random facts)',
  fixed: 'fixed:N (N = the seed’s RetireOPD trigger)',
  'competence-only': 'competence-only gate',
  'alignment-only': 'alignment-only gate',
  'misleading0-retire': 'RetireOPD, no misleading skills',
  'misleading0-opd': 'OPD throughout, no misleading skills',
  lambda: 'RetireOPD, λ_opd ∈ {0.01, 0.1}',
};

/** Every arm the protocol plans for an environment (`hasControl`: it has a negative-control preset), in page order. */
export function plannedArms(hasControl: boolean): string[] {
  return [...STORY_ARMS.filter((a) => a !== 'control' || hasControl), 'fixed', ...ABLATION_ARMS];
}

/** The config key of the misleading-entry ablation and the λ_opd values beside the RetireOPD arm's own 1. */
export const MISLEADING_KEY = 'env.misleadingSkillFraction';
export const LAMBDA_VALUES = [0.01, 0.1] as const;

/** One sweep of the plan: its folder (relative to the protocol folder) and `npm run sweep` arguments. */
export interface PlannedSweep {
  arm: StoryArm | AblationArm | 'fixed';
  folder: string;
  /** the sweep's arguments, `--out` included (joined to the protocol folder with '/') */
  argv: string[];
}

/** The presets of an environment's story (`control-<env>` exists for shell only: `hasControl`). */
function presetOf(arm: StoryArm, env: string): string {
  return arm === 'retire'
    ? `retire-${env}`
    : arm === 'opd'
      ? `opd-${env}`
      : arm === 'grpo'
        ? `grpo-${env}`
        : `control-${env}`;
}

/**
 * The sweeps that do not depend on other runs, in run order (the RetireOPD arm first: fixed:N waits on it).
 * `dir` is the protocol folder; `hasControl` whether the environment has a negative-control preset.
 */
export function plannedSweeps(env: string, seeds: readonly number[], dir: string, hasControl: boolean): PlannedSweep[] {
  const s = seeds.join(',');
  const out = (folder: string): string[] => ['--out', `${dir}/${folder}`];
  const sweeps: PlannedSweep[] = STORY_ARMS.filter((a) => a !== 'control' || hasControl).map((arm) => ({
    arm,
    folder: arm,
    argv: ['--presets', presetOf(arm, env), '--seeds', s, ...out(arm)],
  }));
  const retire = presetOf('retire', env);
  const opd = presetOf('opd', env);
  sweeps.push(
    {
      arm: 'competence-only',
      folder: 'competence-only',
      argv: ['--presets', retire, '--seeds', s, '--set', 'student.schedule=competence-only', ...out('competence-only')],
    },
    {
      arm: 'alignment-only',
      folder: 'alignment-only',
      argv: ['--presets', retire, '--seeds', s, '--set', 'student.schedule=alignment-only', ...out('alignment-only')],
    },
    {
      arm: 'misleading0-retire',
      folder: 'misleading0-retire',
      argv: ['--presets', retire, '--seeds', s, '--set', `${MISLEADING_KEY}=0`, ...out('misleading0-retire')],
    },
    {
      arm: 'misleading0-opd',
      folder: 'misleading0-opd',
      argv: ['--presets', opd, '--seeds', s, '--set', `${MISLEADING_KEY}=0`, ...out('misleading0-opd')],
    },
    {
      arm: 'lambda',
      folder: 'lambda',
      argv: [
        '--preset',
        retire,
        '--seeds',
        s,
        '--vary',
        `student.lambdaOpd=${LAMBDA_VALUES.join(',')}`,
        ...out('lambda'),
      ],
    },
  );
  return sweeps;
}

/**
 * fixed:N, one sweep per seed whose RetireOPD run retired (`triggers`: seed → trigger step, null = never retired:
 * no matched fixed run exists for that seed, and the report says so).
 */
export function fixedSweeps(env: string, triggers: ReadonlyMap<number, number | null>, dir: string): PlannedSweep[] {
  return [...triggers.entries()]
    .filter((e): e is [number, number] => e[1] !== null)
    .sort(([a], [b]) => a - b)
    .map(([seed, n]) => ({
      arm: 'fixed' as const,
      folder: `fixed-${seed}`,
      argv: [
        '--presets',
        presetOf('retire', env),
        '--seeds',
        String(seed),
        '--set',
        `student.schedule=fixed:${n}`,
        '--out',
        `${dir}/fixed-${seed}`,
      ],
    }));
}

/** A planned sweep as the command a person would type. */
export function sweepCommand(p: PlannedSweep): string {
  return `npm run sweep -- ${p.argv.map((a) => (/^[\w./:=,+-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(' ')}`;
}
