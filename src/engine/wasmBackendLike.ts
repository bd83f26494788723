// The parts of tfjs-backend-wasm's backend that the lab's JavaScript wasm kernels use (not in its public types):
// allocating an output, viewing a tensor's data in the wasm heap, sharing a tensor's data and freeing it.
import type * as tf from '@tensorflow/tfjs';

export interface WasmBackendLike {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
  /** one more reference to a tensor's data (freed when the last reference is disposed) */
  incRef(dataId: tf.DataId): void;
  /** drops one reference to a tensor's data (true when the data was freed) */
  disposeData(dataId: tf.DataId): boolean;
}
