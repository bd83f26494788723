// Whether the lab's fused WGSL kernels are used: on webgpu once they are registered, unless turned off (for A/B
// measurements and tests). Its own module so that kernels and registration can both import it without a cycle.
import * as tf from '@tensorflow/tfjs';

/** a kernel every registration includes; its presence means registerWebgpuKernels() has run */
const MARKER_KERNEL = 'RetireRowStatsGrad';

let enabled = true;

/**
 * Turns the fused path off (false) or back on (true), for A/B measurements and tests. The losses, layers and Adam
 * then use the composed tfjs ops even on webgpu.
 */
export function setFusedKernelsEnabled(on: boolean): void {
  enabled = on;
}

/** True when the active backend is webgpu and the lab's kernels are registered and enabled (checked per call). */
export function useFusedKernels(): boolean {
  return enabled && tf.getBackend() === 'webgpu' && tf.getKernel(MARKER_KERNEL, 'webgpu') !== undefined;
}
