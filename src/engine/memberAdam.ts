// Adam over a member axis, with each member's own gradient clip and finiteness guard, queued without a read-back.
//
// One checked step of K members (memberModel.ts) is what checkedUpdate.ts does for one model, member by member:
// the member's squared gradient norm over all its parameters; its clip coefficient min(1, clip / (‖∇‖ + 1e-6))
// (torch's clip_grad_norm_); a flag that is 1 when its loss and norm are finite; then Adam on the clipped gradient
// where the flag is 1 — a member whose step is not finite keeps its weights, moments and step count, the others
// step. The statistics come back as one [K, 4] tensor (loss, ‖∇‖², clip coefficient, flag) for one later read.
//
// Each member counts its own steps (t [K]), so bias corrections are 1 − β^t per member. tfjs's Adam keeps β^t as
// a running float32 product; this computes the power, so the two agree to float32 rounding, not bit for bit.
import * as tf from '@tensorflow/tfjs';
import { CLIP_EPS, resolveAdamConfig, type AdamConfig } from './optimizer';

/** the statistics of one member step, the columns of `stats` */
export const MEMBER_STEP_KEYS = ['loss', 'gradNormSq', 'clipCoef', 'ok'] as const;

export interface MemberStepResult {
  /** [K, 4] float32: loss, gradNormSq (before clipping), clipCoef, ok (1 stepped, 0 refused); caller disposes */
  stats: tf.Tensor2D;
}

export class MemberAdam {
  readonly config: AdamConfig;
  private readonly members: number;
  private readonly variables: tf.Variable[];
  /** each variable's scalars per member, in order: the columns it takes in the flat [K, P] buffers */
  private readonly sizes: number[];
  /** [K, P] first and second moments, every parameter's columns side by side */
  private readonly m: tf.Variable<tf.Rank.R2>;
  private readonly v: tf.Variable<tf.Rank.R2>;
  /** [K] float32: steps each member has taken */
  private readonly t: tf.Variable<tf.Rank.R1>;
  private disposed = false;

  /** Moments for `variables`, each [K, …] with the same K. */
  constructor(variables: readonly tf.Variable[], config: Partial<AdamConfig> = {}) {
    this.config = resolveAdamConfig(config);
    const K = variables[0]?.shape[0];
    if (K === undefined) throw new Error('MemberAdam: no variables (each needs a leading member axis)');
    variables.forEach((x) => {
      if (x.shape[0] !== K)
        throw new Error(
          `MemberAdam: ${x.name} has ${x.shape[0]} members on its first axis, ${variables[0]!.name} ${K}`,
        );
    });
    this.members = K;
    this.variables = [...variables];
    this.sizes = variables.map((x) => x.size / K);
    const P = this.sizes.reduce((a, b) => a + b, 0);
    // (in a tidy: tf.variable keeps its own copy, the zeros it starts from go)
    this.m = tf.tidy(() => tf.variable(tf.zeros<tf.Rank.R2>([K, P]), false));
    this.v = tf.tidy(() => tf.variable(tf.zeros<tf.Rank.R2>([K, P]), false));
    this.t = tf.tidy(() => tf.variable(tf.zeros<tf.Rank.R1>([K]), false));
  }

  /**
   * One checked step: `loss` returns the members' losses [K]; their sum is differentiated (members share no
   * weights, so each member gets its own gradient). `gradClip` null or 0: no clipping. Nothing is read.
   *
   * The update runs on flat [K, P] buffers (the gradients and weights concatenated member by member), so Adam is a
   * dozen kernels for all parameters rather than a dozen per parameter; the new weights are split back at the end.
   */
  step(loss: () => tf.Tensor1D, gradClip: number | null): MemberStepResult {
    if (this.disposed) throw new Error('MemberAdam: disposed');
    const K = this.members;
    const { learningRate, beta1, beta2, epsilon } = this.config;
    let perMember: tf.Tensor1D | null = null;
    const { grads, value } = tf.variableGrads(() => {
      perMember = tf.keep(loss()); // kept past the gradient's forward scope: read in the statistics
      if (perMember.shape.length !== 1 || perMember.shape[0] !== K)
        throw new Error(`MemberAdam.step: the loss must be [${K}] (one per member), got [${perMember.shape}]`);
      return tf.sum(perMember) as tf.Scalar;
    }, this.variables);
    const lossPerMember = perMember as unknown as tf.Tensor1D;
    try {
      const stats = tf.tidy(() => {
        const flat = (ts: tf.Tensor[]) =>
          tf.concat(
            ts.map((x) => tf.reshape(x, [K, -1])),
            1,
          ) as tf.Tensor2D;
        const g = flat(this.variables.map((x) => grads[x.name] as tf.Tensor)); // [K, P]
        const normSq = tf.sum(tf.square(g), 1) as tf.Tensor1D; // [K], before clipping
        const finite = tf.logicalAnd(tf.isFinite(normSq), tf.isFinite(lossPerMember)); // [K] bool
        const ok = tf.cast(finite, 'float32') as tf.Tensor1D;
        const coef = (
          gradClip === null || gradClip === 0
            ? tf.onesLike(normSq)
            : tf.minimum(1, tf.div(gradClip, tf.add(tf.sqrt(normSq), CLIP_EPS)))
        ) as tf.Tensor1D;
        const keep = tf.broadcastTo(tf.reshape(finite, [K, 1]), g.shape); // [K, P]
        // a refused member's gradient is NaN or ∞: replaced before it meets the moments
        const gc = tf.where(keep, tf.mul(g, tf.reshape(coef, [K, 1])), tf.zerosLike(g));
        const m = tf.add(tf.mul(this.m, beta1), tf.mul(gc, 1 - beta1));
        const v = tf.add(tf.mul(this.v, beta2), tf.mul(tf.square(gc), 1 - beta2));
        const t = tf.add(this.t, ok) as tf.Tensor1D;
        // bias corrections per member [K, 1]; 1 where a member has not stepped yet (its update is discarded anyway)
        const correction = (beta: number) =>
          tf.reshape(tf.where(tf.greater(t, 0), tf.sub(1, tf.pow(beta, t)), tf.onesLike(t)), [K, 1]);
        const mHat = tf.div(m, correction(beta1));
        const vHat = tf.div(v, correction(beta2));
        const x = flat(this.variables);
        const next = tf.where(keep, tf.sub(x, tf.mul(learningRate, tf.div(mHat, tf.add(tf.sqrt(vHat), epsilon)))), x);
        this.m.assign(tf.where(keep, m, this.m) as tf.Tensor2D);
        this.v.assign(tf.where(keep, v, this.v) as tf.Tensor2D);
        this.t.assign(t);
        tf.split(next, this.sizes, 1).forEach((part, i) => {
          const variable = this.variables[i]!;
          variable.assign(tf.reshape(part, variable.shape));
        });
        return tf.stack([lossPerMember, normSq, coef, ok], 1) as tf.Tensor2D;
      });
      return { stats };
    } finally {
      tf.dispose([value, lossPerMember, ...Object.values(grads)]);
    }
  }

  /** steps each member has taken, read from the device */
  async steps(): Promise<number[]> {
    return Array.from(await this.t.data());
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    tf.dispose([this.m, this.v, this.t]);
  }
}
