// The small slice of tfjs-backend-webgpu 4.22 that the lab's own WGSL kernels use, typed locally so that this
// folder never imports the webgpu backend (it must bundle for cpu/wasm-only pages and run in Node without Dawn).
//
// A program is a plain object that `backend.runWebGPUProgram(program, inputs, dtype, uniforms)` compiles once per
// shaderKey (+ input ranks/dtypes) and dispatches. tfjs generates the bindings: output `result` (binding 0), one
// read-only storage array per `variableNames` entry, named exactly so (int32 inputs are `array<i32>`), and a uniform
// struct `uniforms` holding `<name>Shape` of every input, `outShape`, `size` (when `size` is set) and the fields of
// `uniforms` below. The user code defines `fn main(index: i32)`; with a flat dispatch layout `index` is the global
// invocation index. WebGPU's default limit is 8 storage buffers per stage: inputs + 1 output ≤ 8 for every program.
import type * as tf from '@tensorflow/tfjs';

export interface WebgpuProgram {
  variableNames: string[];
  outputShape: number[];
  dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  workgroupSize: [number, number, number];
  size: boolean;
  shaderKey: string;
  /** extra uniform fields, WGSL syntax with trailing commas, e.g. 'wAct : f32, mode : i32,' */
  uniforms?: string;
  getUserCode(): string;
}

export interface UniformValue {
  type: 'float32' | 'int32';
  data: number[];
}

export interface WebgpuBackendLike {
  runWebGPUProgram(
    program: WebgpuProgram,
    inputs: tf.TensorInfo[],
    outputDtype: tf.DataType,
    uniforms?: UniformValue[],
  ): tf.TensorInfo;
}

/** The most storage buffers (inputs + output) any program here binds; WebGPU's default per-stage limit. */
const MAX_STORAGE_BUFFERS = 8;

/**
 * A program over a flat output of `outputShape`: one invocation per element (or per `threads` invocations when
 * given, e.g. one per row), `workgroup` invocations per workgroup.
 */
export function flatProgram(
  name: string,
  variableNames: string[],
  outputShape: number[],
  userCode: string,
  options: { threads?: number; workgroup?: number; uniforms?: string; size?: boolean } = {},
): WebgpuProgram {
  if (variableNames.length + 1 > MAX_STORAGE_BUFFERS) {
    throw new Error(
      `${name}: ${variableNames.length} inputs + 1 output exceed WebGPU's ${MAX_STORAGE_BUFFERS} storage buffers per stage`,
    );
  }
  const workgroup = options.workgroup ?? 64;
  const threads = options.threads ?? outputShape.reduce((a, b) => a * b, 1);
  const program: WebgpuProgram = {
    variableNames,
    outputShape,
    dispatchLayout: { x: outputShape.map((_, i) => i) },
    dispatch: [Math.max(1, Math.ceil(threads / workgroup)), 1, 1],
    workgroupSize: [workgroup, 1, 1],
    size: options.size ?? false,
    shaderKey: name,
    getUserCode: () => userCode,
  };
  if (options.uniforms !== undefined) program.uniforms = options.uniforms;
  return program;
}

/** The active backend of a kernelFunc as the narrow interface above (throws when it is not webgpu-like). */
export function asWebgpuBackend(backend: unknown, kernel: string): WebgpuBackendLike {
  const b = backend as Partial<WebgpuBackendLike> | null;
  if (b === null || typeof b.runWebGPUProgram !== 'function') {
    throw new Error(`${kernel}: registered for webgpu but called on a backend without runWebGPUProgram`);
  }
  return b as WebgpuBackendLike;
}

/** WGSL literal of a finite number as f32 (for constants baked into a shader). */
export function f32(x: number): string {
  if (!Number.isFinite(x)) throw new Error(`f32: ${x} is not a finite number`);
  const s = String(x);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}
