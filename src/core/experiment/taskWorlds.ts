// Task worlds as a factor of the "where it helps" map: a world is an environment's universe, fixed by env.seed (which
// directory keeps which file, which room holds which object). The presets run in DEFAULT_WORLD with the teacher
// shipped for it; each further world ships a teacher of its own, trained by the same recipe (the teacher-ENV preset
// with env.seed set to the world; public/teachers/README.md), so that a world's cells measure the method with a
// teacher that world's recipe produced rather than one teacher reused everywhere.

/** The presets' own world: configSchema's default env.seed. */
export const DEFAULT_WORLD = 1;

/** The further worlds that ship a teacher, per environment (public/teachers/ENV-worldN). */
export const SHIPPED_WORLDS: Readonly<Record<string, readonly number[]>> = { shell: [2, 3], shop: [2, 3] };

/**
 * The teacher.checkpoint a run in `world` of `env` uses: the preset's own in DEFAULT_WORLD, else the world's shipped
 * teacher. A world without one is refused with the worlds that have one.
 */
export function worldTeacher(env: string, world: number, presetTeacher: string): string {
  if (world === DEFAULT_WORLD) return presetTeacher;
  const shipped = SHIPPED_WORLDS[env] ?? [];
  if (!shipped.includes(world))
    throw new Error(
      `env.seed ${world}: no shipped ${env} teacher for that world (worlds with one: ${[DEFAULT_WORLD, ...shipped].join(', ')})`,
    );
  return `teachers/${env}-world${world}`;
}

/** "world 2" — how pages and the tab name a world. */
export function worldName(world: number): string {
  return `world ${world}`;
}
