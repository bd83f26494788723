// Fused per-row statistics of next-token distributions on webgpu: target log-prob, entropy and the exact reverse
// KL to a teacher, forward and backward, one WGSL dispatch each (the composed tfjs ops take ~10 forward and ~4–8
// backward dispatches per statistic).
//
// Kernel 'RetireRowStats' — inputs logits [R, V] float32, targets [R] int32 (modes with a log-prob), teacher [R, V]
// float32 (modes with a KL); attr `mode`:
//   'lp'    → [R]     log p(target) = z_target − logsumexp(z)      (0 when the target is outside [0, V))
//   'ent'   → [R]     H = −Σ_v p_v log p_v                          (nats)
//   'lpEnt' → [2, R]  planes lp, H
//   'kl'    → [R]     KL(p ‖ q) = Σ_v p_v (log p_v − log q_v), q = softmax(teacher)
//   'lpKl'  → [2, R]  planes lp, KL
// Kernel 'RetireRowStatsGrad' (the registered gradient) — inputs logits, [targets], [teacher], dy (output-shaped),
// fwd (the forward output); attr `mode`, `wrt`:
//   wrt 'logits':  ∂/∂z_v = dlp·(1[v = target] − p_v) − dH·p_v(log p_v + H) + dKL·p_v(log p_v − log q_v − KL)
//                  (dlp term 0 for a target outside [0, V), as autodiff of the composed one-hot product)
//   wrt 'teacher': ∂/∂zq_v = dKL·(q_v − p_v)
// One invocation per row, a loop over the vocabulary (the lab's vocabularies are tens of tokens). Every term is
// formed from (z − logsumexp) differences, as logSoftmax does, so extreme logits (±80) lose no precision.
import * as tf from '@tensorflow/tfjs';
import { asWebgpuBackend, flatProgram } from './webgpuProgram';

const ROW_STATS_KERNEL = 'RetireRowStats';
const ROW_STATS_GRAD_KERNEL = 'RetireRowStatsGrad';

export type RowStatsMode = 'lp' | 'ent' | 'lpEnt' | 'kl' | 'lpKl';
interface ModeLayout {
  /** output planes, in order */
  planes: ('lp' | 'ent' | 'kl')[];
  hasTargets: boolean;
  hasTeacher: boolean;
}

function modeLayout(mode: RowStatsMode): ModeLayout {
  const planes = { lp: ['lp'], ent: ['ent'], lpEnt: ['lp', 'ent'], kl: ['kl'], lpKl: ['lp', 'kl'] }[mode] as
    ModeLayout['planes'] | undefined;
  if (planes === undefined) throw new Error(`${ROW_STATS_KERNEL}: unknown mode '${String(mode)}'`);
  return { planes, hasTargets: planes.includes('lp'), hasTeacher: planes.includes('kl') };
}

/** Output shape of a mode for R rows: [R] with one plane, [planes, R] otherwise. */
function rowStatsShape(mode: RowStatsMode, rows: number): number[] {
  const n = modeLayout(mode).planes.length;
  return n === 1 ? [rows] : [n, rows];
}

/** WGSL computing lse (and lseq) of row `index`: defines R, V, base, lse, and lseq when the teacher is bound. */
function rowPrologue(hasTeacher: boolean): string {
  return `
    let R = uniforms.logitsShape.x;
    let V = uniforms.logitsShape.y;
    if (index >= R) { return; }
    let base = index * V;
    var m = logits[base];
    ${hasTeacher ? 'var mq = teacher[base];' : ''}
    for (var v = 1; v < V; v++) {
      m = max(m, logits[base + v]);
      ${hasTeacher ? 'mq = max(mq, teacher[base + v]);' : ''}
    }
    var s = 0.0;
    ${hasTeacher ? 'var sq = 0.0;' : ''}
    for (var v = 0; v < V; v++) {
      s += exp(logits[base + v] - m);
      ${hasTeacher ? 'sq += exp(teacher[base + v] - mq);' : ''}
    }
    let lse = m + log(s);
    ${hasTeacher ? 'let lseq = mq + log(sq);' : ''}
  `;
}

function forwardCode(layout: ModeLayout): string {
  const { planes, hasTeacher } = layout;
  const needsSweep = planes.includes('ent') || planes.includes('kl');
  const writes = planes
    .map((p, i) => `result[${i} * R + index] = ${p === 'lp' ? 'lpOut' : p === 'ent' ? '-negH' : 'kl'};`)
    .join('\n');
  return `
  fn main(index : i32) {
    ${rowPrologue(hasTeacher)}
    ${
      planes.includes('lp')
        ? `let t = targets[index];
    let inRange = t >= 0 && t < V;
    let lpOut = select(0.0, logits[base + clamp(t, 0, V - 1)] - lse, inRange);`
        : ''
    }
    var negH = 0.0;
    var kl = 0.0;
    ${
      needsSweep
        ? `for (var v = 0; v < V; v++) {
      let logp = logits[base + v] - lse;
      let p = exp(logp);
      ${planes.includes('ent') ? 'negH += p * logp;' : ''}
      ${hasTeacher ? 'kl += p * (logp - (teacher[base + v] - lseq));' : ''}
    }`
        : ''
    }
    ${writes}
  }`;
}

function backwardCode(layout: ModeLayout, wrt: 'logits' | 'teacher'): string {
  const { planes, hasTeacher } = layout;
  const plane = (p: 'lp' | 'ent' | 'kl'): number => planes.indexOf(p);
  const dyOf = (p: 'lp' | 'ent' | 'kl'): string => (plane(p) < 0 ? '0.0' : `dy[${plane(p)} * R + index]`);
  const outOf = (p: 'lp' | 'ent' | 'kl'): string => (plane(p) < 0 ? '0.0' : `fwd[${plane(p)} * R + index]`);
  if (wrt === 'teacher') {
    return `
  fn main(index : i32) {
    ${rowPrologue(true)}
    let dkl = ${dyOf('kl')};
    for (var v = 0; v < V; v++) {
      let p = exp(logits[base + v] - lse);
      let q = exp(teacher[base + v] - lseq);
      result[base + v] = dkl * (q - p);
    }
  }`;
  }
  return `
  fn main(index : i32) {
    ${rowPrologue(hasTeacher)}
    ${planes.includes('lp') ? 'let t = targets[index];' : 'let t = -1;'}
    // a target outside [0, V) has log-prob 0 (no one-hot entry) and so no gradient, as autodiff of the composed op
    let dlp = select(0.0, ${dyOf('lp')}, t >= 0 && t < V);
    let dent = ${dyOf('ent')};
    let dkl = ${dyOf('kl')};
    let H = ${outOf('ent')};
    let KL = ${outOf('kl')};
    for (var v = 0; v < V; v++) {
      let logp = logits[base + v] - lse;
      let p = exp(logp);
      var g = -dlp * p - dent * p * (logp + H);
      ${hasTeacher ? 'g += dkl * p * (logp - (teacher[base + v] - lseq) - KL);' : ''}
      if (v == t) { g += dlp; }
      result[base + v] = g;
    }
  }`;
}

function inputNames(layout: ModeLayout): string[] {
  return ['logits', ...(layout.hasTargets ? ['targets'] : []), ...(layout.hasTeacher ? ['teacher'] : [])];
}

function checkRows(logits: tf.TensorInfo, other: tf.TensorInfo | undefined, what: string, kernel: string): void {
  if (logits.shape.length !== 2) throw new Error(`${kernel}: logits must be [rows, vocab], got [${logits.shape}]`);
  if (other === undefined) throw new Error(`${kernel}: this mode needs input '${what}'`);
}

const rowStatsKernel: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const mode = (attrs as { mode: RowStatsMode }).mode;
  const layout = modeLayout(mode);
  const logits = inputs.logits as tf.TensorInfo;
  const ins: tf.TensorInfo[] = [logits];
  for (const name of inputNames(layout).slice(1)) {
    checkRows(logits, inputs[name] as tf.TensorInfo | undefined, name, ROW_STATS_KERNEL);
    ins.push(inputs[name] as tf.TensorInfo);
  }
  const rows = logits.shape[0] as number;
  const program = flatProgram(
    `${ROW_STATS_KERNEL}_${mode}`,
    inputNames(layout),
    rowStatsShape(mode, rows),
    forwardCode(layout),
    { threads: rows },
  );
  return asWebgpuBackend(backend, ROW_STATS_KERNEL).runWebGPUProgram(program, ins, 'float32');
};

const rowStatsGradKernel: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const { mode, wrt } = attrs as { mode: RowStatsMode; wrt: 'logits' | 'teacher' };
  const layout = modeLayout(mode);
  // 'auto' pipeline layouts drop bindings the shader never reads, so bind exactly the inputs this variant reads
  const names =
    wrt === 'teacher'
      ? ['logits', 'teacher', 'dy']
      : [...inputNames(layout), 'dy', ...(layout.planes.length > 1 || !layout.hasTargets ? ['fwd'] : [])];
  const ins = names.map((n) => {
    const t = inputs[n] as tf.TensorInfo | undefined;
    if (t === undefined) throw new Error(`${ROW_STATS_GRAD_KERNEL}: missing input '${n}' for mode '${mode}'`);
    return t;
  });
  const logits = inputs.logits as tf.TensorInfo;
  const rows = logits.shape[0] as number;
  const program = flatProgram(
    `${ROW_STATS_GRAD_KERNEL}_${mode}_${wrt}`,
    names,
    logits.shape.slice(),
    backwardCode(layout, wrt),
    { threads: rows },
  );
  return asWebgpuBackend(backend, ROW_STATS_GRAD_KERNEL).runWebGPUProgram(program, ins, 'float32');
};

/** Forward kernel name of a mode: one name per input set (tfjs saves inputs for the gradient by name). */
function rowStatsKernelName(mode: RowStatsMode): string {
  const l = modeLayout(mode);
  return `${ROW_STATS_KERNEL}${l.hasTargets ? 'T' : ''}${l.hasTeacher ? 'Q' : ''}`;
}

const INPUT_SETS: RowStatsMode[] = ['ent', 'lp', 'kl', 'lpKl']; // one representative mode per kernel name

export const rowStatsKernelConfigs: tf.KernelConfig[] = [
  ...INPUT_SETS.map((m) => ({ kernelName: rowStatsKernelName(m), backendName: 'webgpu', kernelFunc: rowStatsKernel })),
  { kernelName: ROW_STATS_GRAD_KERNEL, backendName: 'webgpu', kernelFunc: rowStatsGradKernel },
];

export const rowStatsGradConfigs: tf.GradConfig[] = INPUT_SETS.map((representative) => {
  const names = inputNames(modeLayout(representative));
  return {
    kernelName: rowStatsKernelName(representative),
    inputsToSave: names,
    outputsToSave: [true],
    gradFunc: (dy, saved, attrs) => {
      const mode = (attrs as unknown as { mode: RowStatsMode }).mode;
      const layout = modeLayout(mode);
      // saved = the inputs in `names` order, then the forward output
      const byName: Record<string, tf.Tensor> = {};
      names.forEach((n, i) => (byName[n] = saved[i] as tf.Tensor));
      const gradInputs = { ...byName, dy: dy as tf.Tensor, fwd: saved[names.length] as tf.Tensor };
      const grad = (wrt: 'logits' | 'teacher') => (): tf.Tensor =>
        tf.engine().runKernel(ROW_STATS_GRAD_KERNEL, gradInputs, { mode, wrt }) as tf.Tensor;
      const grads: Record<string, () => tf.Tensor> = { logits: grad('logits') };
      if (layout.hasTargets) grads.targets = () => tf.zerosLike(byName.targets as tf.Tensor);
      if (layout.hasTeacher) grads.teacher = grad('teacher');
      return grads;
    },
  };
});

/**
 * Runs the fused row statistics on the active (webgpu) backend. logits [R, V] float32, targets [R] int32,
 * teacher [R, V] float32 → rowStatsShape(mode, R). Differentiable w.r.t. logits and teacher.
 */
export function rowStats(mode: RowStatsMode, logits: tf.Tensor, targets?: tf.Tensor, teacher?: tf.Tensor): tf.Tensor {
  const layout = modeLayout(mode);
  const inputs: tf.NamedTensorMap = { logits };
  if (layout.hasTargets) {
    if (targets === undefined) throw new Error(`rowStats('${mode}'): targets [R] are required`);
    inputs.targets = targets.dtype === 'int32' ? targets : tf.cast(targets, 'int32');
  }
  if (layout.hasTeacher) {
    if (teacher === undefined) throw new Error(`rowStats('${mode}'): teacher logits [R, V] are required`);
    inputs.teacher = teacher;
  }
  return tf.engine().runKernel(rowStatsKernelName(mode), inputs, { mode }) as tf.Tensor;
}
