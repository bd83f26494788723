// The queue a "where it helps" cell starts: the environment's retire- preset at the cell's misleading fraction, in
// the cell's task world with that world's own teacher (core/experiment/taskWorlds.ts), RetireOPD (adaptive gate) and
// OPD throughout on the first `seeds` reporting seeds — the pages' own arms and seeds, so the user's runs land in
// the same cell.
import type { HelpsCell } from '../../core/experiment/helpsMap';
import type { Preset } from '../../core/experiment/preset';
import { MISLEADING_KEY } from '../../core/experiment/protocolPlan';
import { REPORTING_SEEDS } from '../../core/experiment/seedProtocol';
import { worldTeacher } from '../../core/experiment/taskWorlds';
import { createQueue, type RunQueue } from '../runs/runQueue';

/** The arms of a cell's queue: the preset's config under the adaptive gate and OPD throughout. */
export const CELL_ARMS = ['adaptive', 'never'];

export function cellQueue(cell: HelpsCell, preset: Preset, seeds: number): RunQueue {
  const teacher = worldTeacher(cell.env, cell.world, preset.config.teacher.checkpoint);
  return createQueue(
    preset,
    [`${MISLEADING_KEY}=${cell.misleadingFraction}`, `env.seed=${cell.world}`, `teacher.checkpoint=${teacher}`],
    'auto',
    REPORTING_SEEDS.slice(0, seeds),
    { 'student.schedule': CELL_ARMS },
  );
}
