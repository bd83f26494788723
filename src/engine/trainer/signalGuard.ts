// "All zeros" is a failure, not a result. Every step event passes this guard before it leaves the trainer:
// - a GPU error reported since the last step (validation, out of memory, lost device) stops the run, naming the
//   kernel (webgpuDevice.ts);
// - when the first steps a stage runs in this process all report exactly zero loss, gradient norm and entropy (or
//   token count), the backend computed nothing — stale buffers, a refused kernel — and the run stops with an
//   error instead of drawing flat lines. Real training never gives an exact 0 for all of them: a softmax policy has
//   positive entropy and SFT always has demonstration tokens. Later steps are not judged (a collapsed policy may
//   legitimately reach entropy 0 after long training).
import * as tf from '@tensorflow/tfjs';
import { assertGpuHealthy } from '../webgpuDevice';
import type { MetricsLine, StageName } from './events';
import { METRIC } from '../../core/runLog/metricKeys';

/** The metrics that cannot all be exactly 0 at a step that computed anything, per training stage. */
const SIGNAL_KEYS: Partial<Record<StageName, readonly string[]>> = {
  sft: [METRIC.sftLoss, METRIC.sftGradNorm, METRIC.sftActionTokens],
  teacher: [METRIC.actorLoss, METRIC.actorEntropy, METRIC.actorGradNorm],
  student: [METRIC.actorLoss, METRIC.actorEntropy, METRIC.actorGradNorm],
};

/** The run computed nothing: its first steps' losses and gradients are exactly zero. */
export class NoTrainingSignalError extends Error {
  constructor(
    readonly stage: StageName,
    readonly step: number,
    message: string,
  ) {
    super(message);
    this.name = 'NoTrainingSignalError';
  }
}

export class SignalGuard {
  /** consecutive all-zero steps seen at the start of each stage; null once a stage showed a live step */
  private readonly dead = new Map<StageName, number | null>();

  /** @param firstSteps how many leading all-zero steps of a stage make a failure (fewer if the stage is shorter) */
  constructor(private readonly firstSteps = 3) {}

  observe(stage: StageName, step: number, totalSteps: number, metrics: MetricsLine): void {
    assertGpuHealthy(`${stage} step ${step}`);
    const keys = SIGNAL_KEYS[stage];
    const seen = this.dead.get(stage);
    if (keys === undefined || seen === null) return;
    if (!keys.every((k) => metrics[k] === 0)) {
      this.dead.set(stage, null);
      return;
    }
    const n = (seen ?? 0) + 1;
    this.dead.set(stage, n);
    if (n >= this.firstSteps || step >= totalSteps) {
      throw new NoTrainingSignalError(
        stage,
        step,
        `no training signal: ${keys.join(', ')} were exactly 0 at each of the first ${n} ${stage} step(s) ` +
          `(up to step ${step}) on backend '${tf.getBackend()}' — the backend computed nothing; the run stopped ` +
          `instead of drawing flat lines (compare with --backend wasm)`,
      );
    }
  }
}
