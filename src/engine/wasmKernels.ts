// Replacements for tfjs-backend-wasm 4.22 kernels: faster Slice, SplitV, Unpack and GatherV2, and a correct OneHot.
// The stock kernels read their input with backend.readSync, which COPIES THE WHOLE INPUT out of the wasm heap for
// every output: splitting or unstacking a tensor into n parts costs n full copies (unstacking [256,127,127] took
// 1.4 s, 256 slices 3.8 s in Node). These versions copy only the requested elements through views of the heap.
// Same semantics (float32/int32/bool); string tensors fall back to the stock kernel.
// The stock Identity copied its input. tfjs clones every tensor it saves for a backward pass, so a W1 training step
// made 84 such copies (about 19 ms of a 540 ms step); here Identity is a second reference to the same data, as on
// tfjs's cpu backend and as the wasm Reshape already is. That is safe because no wasm kernel (stock or the lab's)
// writes into an input's memory: every one allocates its output.
// The stock OneHot ignores dtype 'float32' and writes int32 bit patterns into the float buffer (1 reads as 1.4e-45).
import * as tf from '@tensorflow/tfjs';
import { wasmAdamKernelConfig } from './wasmAdam';
import { batchMatMulKernel } from './wasmBatchMatMul';
import type { WasmBackendLike } from './wasmBackendLike';
import { wasmKvWriteKernelConfig } from './wasmKvWrite';

function strides(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length).fill(1);
  for (let i = shape.length - 2; i >= 0; i--) s[i] = (s[i + 1] as number) * (shape[i + 1] as number);
  return s;
}

/** copies x[begin : begin+size] into a new output; views are taken after allocation (malloc may grow the heap) */
function sliceInto(
  backend: WasmBackendLike,
  x: tf.TensorInfo,
  begin: readonly number[],
  size: readonly number[],
): tf.TensorInfo {
  const out = backend.makeOutput(size.slice(), x.dtype);
  const src = backend.typedArrayFromHeap(x);
  const dst = backend.typedArrayFromHeap(out);
  const rank = x.shape.length;
  const xs = strides(x.shape);
  if (rank === 0) {
    dst.set(src.subarray(0, 1));
    return out;
  }
  // innermost run that is contiguous in x: the last axis, extended over trailing axes taken whole
  let inner = rank - 1;
  while (inner > 0 && size[inner] === x.shape[inner] && begin[inner] === 0) inner--;
  const run = size.slice(inner).reduce((a, b) => a * b, 1);
  const outer = size.slice(0, inner);
  const count = outer.reduce((a, b) => a * b, 1);
  const idx = new Array<number>(inner).fill(0);
  let o = 0;
  for (let n = 0; n < count; n++) {
    let off = (begin[inner] as number) * (xs[inner] as number);
    for (let d = 0; d < inner; d++) off += ((begin[d] as number) + (idx[d] as number)) * (xs[d] as number);
    dst.set(src.subarray(off, off + run), o);
    o += run;
    for (let d = inner - 1; d >= 0; d--) {
      idx[d] = (idx[d] as number) + 1;
      if ((idx[d] as number) < (size[d] as number)) break;
      idx[d] = 0;
    }
  }
  return out;
}

let installed = false;

/**
 * Replaces the wasm Slice, SplitV, Unpack, GatherV2, OneHot, Identity and BatchMatMul kernels and adds the Adam-step and
 * KV-write kernels (idempotent). Call after the wasm backend is registered.
 */
export function installWasmKernelFixes(): void {
  if (installed) return;
  const stock = (name: string): tf.KernelConfig => {
    const k = tf.getKernel(name, 'wasm');
    if (k === undefined) throw new Error(`wasm kernel ${name} is not registered`);
    return k as tf.KernelConfig;
  };
  const slice = stock('Slice');
  const splitV = stock('SplitV');
  const unpack = stock('Unpack');
  const oneHot = stock('OneHot');
  const batchMatMul = stock('BatchMatMul');
  const gatherV2 = stock('GatherV2');
  const identity = stock('Identity');
  const replace = (base: tf.KernelConfig, kernelFunc: tf.KernelFunc): void => {
    tf.unregisterKernel(base.kernelName, 'wasm');
    tf.registerKernel({ ...base, kernelFunc });
  };

  replace(slice, (args) => {
    const x = args.inputs.x as tf.TensorInfo;
    if (x.dtype === 'string') return slice.kernelFunc(args);
    const { begin, size } = args.attrs as unknown as { begin: number | number[]; size: number | number[] };
    const [b, s] = tf.slice_util.parseSliceParams(x as tf.Tensor, begin, size) as [number[], number[]];
    return sliceInto(args.backend as unknown as WasmBackendLike, x, b, s);
  });

  replace(splitV, (args) => {
    const x = args.inputs.x as tf.TensorInfo;
    if (x.dtype === 'string') return splitV.kernelFunc(args);
    const { numOrSizeSplits, axis } = args.attrs as unknown as { numOrSizeSplits: number | number[]; axis: number };
    const ax = tf.util.parseAxisParam(axis, x.shape)[0] as number;
    const sizes = tf.backend_util.prepareSplitSize(x as tf.Tensor, numOrSizeSplits, ax);
    const begin = new Array<number>(x.shape.length).fill(0);
    return sizes.map((n) => {
      const size = x.shape.slice();
      size[ax] = n;
      const out = sliceInto(args.backend as unknown as WasmBackendLike, x, begin, size);
      begin[ax] = (begin[ax] as number) + n;
      return out;
    });
  });

  replace(unpack, (args) => {
    const x = args.inputs.value as tf.TensorInfo;
    if (x.dtype === 'string') return unpack.kernelFunc(args);
    let { axis } = args.attrs as unknown as { axis: number };
    if (axis < 0) axis += x.shape.length;
    const outShape = x.shape.filter((_, i) => i !== axis);
    const backend = args.backend as unknown as WasmBackendLike;
    const begin = new Array<number>(x.shape.length).fill(0);
    const size = x.shape.slice();
    size[axis] = 1;
    const outs: tf.TensorInfo[] = [];
    for (let i = 0; i < (x.shape[axis] as number); i++) {
      begin[axis] = i;
      const o = sliceInto(backend, x, begin, size);
      // same data, rank reduced: the output info's shape is what the engine uses
      (o as { shape: number[] }).shape = outShape.slice();
      outs.push(o);
    }
    return outs;
  });
  replace(oneHot, (args) => {
    const indices = args.inputs.indices as tf.TensorInfo;
    const { dtype, depth, onValue, offValue } = args.attrs as unknown as {
      dtype: tf.DataType;
      depth: number;
      onValue: number;
      offValue: number;
    };
    const backend = args.backend as unknown as WasmBackendLike;
    const out = backend.makeOutput([...indices.shape, depth], dtype);
    const idx = backend.typedArrayFromHeap(indices);
    const dst = backend.typedArrayFromHeap(out);
    dst.fill(offValue);
    for (let i = 0; i < idx.length; i++) {
      const v = idx[i] as number;
      if (v >= 0 && v < depth) dst[i * depth + v] = onValue;
    }
    return out;
  });
  // gather as copies of contiguous runs through heap views (the stock kernel took 6 ms to pick 1,200 rows of 192)
  replace(gatherV2, (args) => {
    const x = args.inputs.x as tf.TensorInfo;
    const indices = args.inputs.indices as tf.TensorInfo;
    const { axis, batchDims } = args.attrs as unknown as { axis: number; batchDims: number };
    if (x.dtype === 'string' || batchDims !== 0) return gatherV2.kernelFunc(args);
    const ax = tf.util.parseAxisParam(axis, x.shape)[0] as number;
    const backend = args.backend as unknown as WasmBackendLike;
    const dim = x.shape[ax] as number;
    const outer = x.shape.slice(0, ax).reduce((a, b) => a * b, 1);
    const inner = x.shape.slice(ax + 1).reduce((a, b) => a * b, 1);
    // indices checked before the output is allocated, so a bad index leaves nothing behind
    const checked = backend.typedArrayFromHeap(indices);
    for (let j = 0; j < checked.length; j++) {
      const v = checked[j] as number;
      if (!(v >= 0 && v < dim)) throw new Error(`gather: index ${v} at ${j} is outside [0, ${dim - 1}]`);
    }
    const out = backend.makeOutput([...x.shape.slice(0, ax), ...indices.shape, ...x.shape.slice(ax + 1)], x.dtype);
    // views taken after the allocation (malloc may grow the heap and detach older views)
    const idx = backend.typedArrayFromHeap(indices);
    const src = backend.typedArrayFromHeap(x);
    const dst = backend.typedArrayFromHeap(out);
    const n = idx.length;
    for (let o = 0; o < outer; o++) {
      for (let j = 0; j < n; j++) {
        const from = (o * dim + (idx[j] as number)) * inner;
        dst.set(src.subarray(from, from + inner), (o * n + j) * inner);
      }
    }
    return out;
  });
  // a clone shares its input's data (the backend counts the references and frees the data with the last one)
  replace(identity, (args) => {
    const x = args.inputs.x as tf.TensorInfo;
    if (x.dtype === 'string') return identity.kernelFunc(args);
    (args.backend as unknown as WasmBackendLike).incRef(x.dataId);
    return { dataId: x.dataId, shape: x.shape.slice(), dtype: x.dtype };
  });
  // one kernel for a whole batched/transposed product, every slice through XNNPACK (wasmBatchMatMul.ts)
  replace(batchMatMul, batchMatMulKernel(batchMatMul.kernelFunc, stock('Transpose').kernelFunc));
  // one kernel per variable for an Adam step, bit-identical to tfjs's composed update (wasmAdam.ts)
  tf.registerKernel(wasmAdamKernelConfig);
  // one kernel for a KV-cache write into a row-trimmed cache (wasmKvWrite.ts, kvCache.ts)
  tf.registerKernel(wasmKvWriteKernelConfig);
  installed = true;
}
