// When and what the trainer checkpoints: a snapshot of the run (every policy's weights, the optimizer of the stage
// in progress, state.json with the schedule), written only when every number in it is finite, sealed with its
// manifest, named `<stage>-<step:6>` and pruned to the newest runtime.keepCheckpoints mid-stage checkpoints (every
// stage-start checkpoint, step 0, is kept). The format itself is checkpoint.ts's.
import type { ExperimentConfig } from '../../core/experiment/config';
import type { LambdaSchedule } from '../../core/lambdaSchedule';
import { weightsToHost, type HostTensor } from '../hostTensor';
import type { PolicyModel } from '../model';
import type { ModelConfig } from '../modelConfig';
import {
  encodeCheckpoint,
  firstNonFinite,
  sealCheckpoint,
  type CheckpointContent,
  type CheckpointStorage,
} from './checkpoint';
import { checkpointName, checkpointRunOrder } from '../../core/runLog/checkpointName';
import { NonFiniteError, type TrainerEventSink } from './events';
import type { SharedSnapshot } from './stages/stageContext';
import type { TrainerState } from './trainerState';

export type CheckpointReason = 'periodic' | 'stage-end' | 'interrupt';

/** What a checkpoint holds, read from the run at the moment it is taken. */
export interface RunSnapshot extends SharedSnapshot {
  state: TrainerState;
  schedule: LambdaSchedule | null;
}

export class Checkpointer {
  constructor(
    private readonly storage: CheckpointStorage | null,
    private readonly cfg: ExperimentConfig,
    private readonly modelConfig: ModelConfig,
    private readonly emit: TrainerEventSink,
  ) {}

  /**
   * Write a checkpoint of a run (nothing without storage): its state and schedule with the host parts `host`
   * (readShared). Throws NonFiniteError instead of saving NaN.
   */
  async write(reason: CheckpointReason, host: HostShared, run: Pick<RunSnapshot, 'state' | 'schedule'>): Promise<void> {
    const storage = this.storage;
    if (!storage) return;
    const content = checkpointContent(host, run, this.modelConfig);
    const { state } = content;
    const files = await encodeCheckpoint(content);
    await sealCheckpoint(files, { stage: state.stage, step: state.step }, storage.sha256?.bind(storage));
    const name = checkpointName(state.stage, state.step);
    await storage.write(name, files);
    this.emit({ type: 'checkpoint', name, stage: state.stage, step: state.step, reason });
    await this.prune(storage, name);
  }

  /** Keep the newest runtime.keepCheckpoints mid-stage checkpoints (and every stage-start one, step 0). */
  private async prune(storage: CheckpointStorage, newest: string): Promise<void> {
    const keep = this.cfg.runtime.keepCheckpoints;
    if (keep === 0) return;
    const mid = (await storage.list())
      .filter((n) => checkpointRunOrder(n) >= 0 && !n.endsWith('-000000') && n !== newest)
      .sort((a, b) => checkpointRunOrder(a) - checkpointRunOrder(b));
    const excess = mid.length - (keep - 1);
    for (const n of mid.slice(0, Math.max(0, excess))) await storage.remove(n);
  }
}

/** The leader's shared parts read back to the host once: every policy's weights and the optimizer's state. */
export interface HostShared {
  models: Record<string, Record<string, HostTensor>>;
  optimizer: Record<string, HostTensor>;
  wallSeconds: number;
}

/** Read the policies' weights and the optimizer's state back to the host (one readback for any number of runs). */
export async function readShared(shared: SharedSnapshot): Promise<HostShared> {
  const models: Record<string, Record<string, HostTensor>> = {};
  for (const [name, m] of Object.entries(shared.models) as [string, PolicyModel | undefined][])
    if (m) models[name] = weightsToHost(await m.getWeights());
  const optimizer = shared.optimizer ? await shared.optimizer.getState() : {};
  return { models, optimizer, wallSeconds: shared.wallSeconds };
}

/**
 * What a checkpoint of one run holds, in memory: the host parts `host` with its own state and schedule. What
 * Checkpointer.write encodes, and what a follower leaving its leader continues from (followers.ts). Throws
 * NonFiniteError instead of returning NaN.
 */
export function checkpointContent(
  host: HostShared,
  run: Pick<RunSnapshot, 'state' | 'schedule'>,
  modelConfig: ModelConfig,
): CheckpointContent<TrainerState> {
  const { models, optimizer } = host;
  const state: TrainerState = {
    ...structuredClone(run.state),
    schedule: run.schedule ? run.schedule.toJSON() : null,
    wallSeconds: host.wallSeconds,
  };
  // only finite state becomes a checkpoint: NaN weights must never be "the last good checkpoint"
  const bad = firstNonFinite({ models, optimizer });
  if (bad !== null)
    throw new NonFiniteError(state.stage, state.step, 'weights', `${bad} holds NaN/Infinity; no checkpoint written`);
  return { models, optimizer, state, topology: { policy: modelConfig, models: Object.keys(models) } };
}
