// Registers the lab's own WGSL kernels (forward kernels, their gradient kernels and gradients) for backendName
// 'webgpu', and says whether the losses should use them. Registration touches no GPU and needs no webgpu import:
// tfjs looks kernels up by (name, backend) at call time.
import * as tf from '@tensorflow/tfjs';
import { geluGradConfig, geluKernelConfigs } from './webgpuGelu';
import { layerNormGradConfig, layerNormKernelConfigs } from './webgpuLayerNorm';
import { grpoGradConfigs, grpoKernelConfigs } from './webgpuGrpoReduce';
import { opdGradConfig, opdKernelConfigs } from './webgpuOpdReduce';
import { sftGradConfig, sftKernelConfigs } from './webgpuSftReduce';
import { rowStatsGradConfigs, rowStatsKernelConfigs } from './webgpuTokenStats';
import { adamKernelConfigs } from './webgpuAdam';
import { samplingKernelConfigs } from './webgpuSampling';
import { decodeStepKernelConfigs } from './webgpuDecodeStep';

let registered = false;

/** Registers every kernel of this folder for 'webgpu' (idempotent). Call once the webgpu backend is imported. */
export function registerWebgpuKernels(): void {
  if (registered) return;
  for (const k of [
    ...rowStatsKernelConfigs,
    ...sftKernelConfigs,
    ...grpoKernelConfigs,
    ...opdKernelConfigs,
    ...layerNormKernelConfigs,
    ...geluKernelConfigs,
    ...adamKernelConfigs,
    ...samplingKernelConfigs,
    ...decodeStepKernelConfigs,
  ]) {
    if (tf.getKernel(k.kernelName, k.backendName) === undefined) tf.registerKernel(k);
  }
  for (const g of [
    ...rowStatsGradConfigs,
    sftGradConfig,
    ...grpoGradConfigs,
    opdGradConfig,
    layerNormGradConfig,
    geluGradConfig,
  ]) {
    if (tf.getGradient(g.kernelName) === undefined) tf.registerGradient(g);
  }
  registered = true;
}

export { setFusedKernelsEnabled, useFusedKernels } from './kernelSwitch';
