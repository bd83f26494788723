// Checkpoints: model weights + optimizer state in the tfjs weights format, and the trainer's JSON state
// (stage, step, config, gate/schedule state, RNG scheme, counters). Storage-agnostic: a CheckpointStorage writes a
// checkpoint's files all-or-nothing (Node: temp folder + rename, see nodeCheckpointStorage.ts; the browser: one
// IndexedDB transaction, later).
//
// Files of one checkpoint:
//   model.json   tfjs-style: { format, generatedBy, modelTopology, weightsManifest: [{ paths: ['weights.bin'],
//                weights: [{ name, shape, dtype, group }] }] } — names are "<model>/<weight>" for the policies
//                (group 'model') and "optimizer/<name>" (group 'optimizer'), so tf.io.decodeWeights /
//                tf.io.loadWeights read them directly.
//   weights.bin  the concatenated little-endian float32/int32 buffers in manifest order.
//   state.json   the trainer's state (TrainerCheckpointState, versioned).
import * as tf from '@tensorflow/tfjs';

export const CHECKPOINT_FORMAT = 'retirelab-checkpoint';
export const CHECKPOINT_VERSION = 1;

/** Files of one checkpoint, by file name. */
export type CheckpointFiles = Map<string, Uint8Array>;

/** Where checkpoints live. Names are short slugs ("step-000040"); `latest` is the most recently written. */
export interface CheckpointStorage {
  /** Write every file of checkpoint `name` atomically (a reader sees all of it or none) and mark it latest. */
  write(name: string, files: CheckpointFiles): Promise<void>;
  read(name: string): Promise<CheckpointFiles | null>;
  /** Name of the last checkpoint written completely, or null. */
  latest(): Promise<string | null>;
  list(): Promise<string[]>;
  remove(name: string): Promise<void>;
}

/** In-memory storage (tests, and the browser before IndexedDB lands). */
export class MemoryCheckpointStorage implements CheckpointStorage {
  private readonly store = new Map<string, CheckpointFiles>();
  private last: string | null = null;
  async write(name: string, files: CheckpointFiles): Promise<void> {
    this.store.set(name, new Map([...files].map(([k, v]) => [k, v.slice()])));
    this.last = name;
  }
  async read(name: string): Promise<CheckpointFiles | null> {
    const f = this.store.get(name);
    return f ? new Map([...f].map(([k, v]) => [k, v.slice()])) : null;
  }
  async latest(): Promise<string | null> {
    return this.last;
  }
  async list(): Promise<string[]> {
    return [...this.store.keys()];
  }
  async remove(name: string): Promise<void> {
    this.store.delete(name);
    if (this.last === name) this.last = null;
  }
}

/** Host copy of a tensor: enough to rebuild it bit-exactly. */
export interface HostTensor {
  shape: number[];
  dtype: 'float32' | 'int32';
  data: Float32Array | Int32Array;
}

export interface CheckpointContent<S> {
  /** policy weights by model ("student", "teacher", "init") then weight name */
  models: Record<string, Record<string, HostTensor>>;
  /** optimizer variables by name (Adam moments, step counter) */
  optimizer: Record<string, HostTensor>;
  /** JSON state of the trainer */
  state: S;
  /** free-form topology description saved in model.json (model configs) */
  topology: unknown;
}

interface ModelJson {
  format: string;
  version: number;
  generatedBy: string;
  modelTopology: unknown;
  weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function toTensorMap(entries: Record<string, HostTensor>, prefix: string): { name: string; tensor: tf.Tensor }[] {
  return Object.entries(entries).map(([name, h]) => ({
    name: `${prefix}/${name}`,
    tensor: tf.tensor(h.data, h.shape, h.dtype),
  }));
}

/** Serialise a checkpoint's content into its files. Tensors created here are disposed here. */
export async function encodeCheckpoint<S>(content: CheckpointContent<S>): Promise<CheckpointFiles> {
  const modelTensors = Object.entries(content.models).flatMap(([model, weights]) => toTensorMap(weights, model));
  const optTensors = toTensorMap(content.optimizer, 'optimizer');
  try {
    const m = await tf.io.encodeWeights(modelTensors, 'model');
    const o = await tf.io.encodeWeights(optTensors, 'optimizer');
    const bin = new Uint8Array(m.data.byteLength + o.data.byteLength);
    bin.set(new Uint8Array(m.data), 0);
    bin.set(new Uint8Array(o.data), m.data.byteLength);
    const modelJson: ModelJson = {
      format: CHECKPOINT_FORMAT,
      version: CHECKPOINT_VERSION,
      generatedBy: 'RetireLab',
      modelTopology: content.topology,
      weightsManifest: [{ paths: ['weights.bin'], weights: [...m.specs, ...o.specs] }],
    };
    return new Map([
      ['model.json', encoder.encode(JSON.stringify(modelJson, null, 1))],
      ['weights.bin', bin],
      ['state.json', encoder.encode(JSON.stringify(content.state, null, 1))],
    ]);
  } finally {
    for (const t of [...modelTensors, ...optTensors]) t.tensor.dispose();
  }
}

export class CheckpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckpointError';
  }
}

/** Parse a checkpoint's files back into host arrays. `validateState` checks and types the JSON state. */
export function decodeCheckpoint<S>(files: CheckpointFiles, validateState: (raw: unknown) => S): CheckpointContent<S> {
  const get = (name: string): Uint8Array => {
    const f = files.get(name);
    if (!f) throw new CheckpointError(`checkpoint is missing ${name}`);
    return f;
  };
  let modelJson: ModelJson;
  let rawState: unknown;
  try {
    modelJson = JSON.parse(decoder.decode(get('model.json'))) as ModelJson;
    rawState = JSON.parse(decoder.decode(get('state.json')));
  } catch (e) {
    if (e instanceof CheckpointError) throw e;
    throw new CheckpointError(`checkpoint JSON is unreadable: ${(e as Error).message}`);
  }
  if (modelJson.format !== CHECKPOINT_FORMAT || modelJson.version !== CHECKPOINT_VERSION) {
    throw new CheckpointError(
      `model.json: expected format ${CHECKPOINT_FORMAT} version ${CHECKPOINT_VERSION}, got ${String(modelJson.format)} ${String(modelJson.version)}`,
    );
  }
  const group = modelJson.weightsManifest[0];
  if (!group || group.paths.length !== 1)
    throw new CheckpointError('model.json: expected one weights group with one path');
  const bin = get(group.paths[0] as string);
  // decodeWeights reads from an ArrayBuffer; copy so the slice starts at offset 0
  const buffer = bin.slice().buffer;
  const models: Record<string, Record<string, HostTensor>> = {};
  const optimizer: Record<string, HostTensor> = {};
  let offset = 0;
  for (const spec of group.weights) {
    const dtype = spec.dtype as 'float32' | 'int32';
    if (dtype !== 'float32' && dtype !== 'int32')
      throw new CheckpointError(`weights.bin: unsupported dtype ${spec.dtype} of ${spec.name}`);
    const size = spec.shape.reduce((a, b) => a * b, 1);
    if (offset + size * 4 > buffer.byteLength) throw new CheckpointError(`weights.bin is truncated at ${spec.name}`);
    const data =
      dtype === 'float32'
        ? new Float32Array(buffer, offset, size).slice()
        : new Int32Array(buffer, offset, size).slice();
    offset += size * 4;
    const slash = spec.name.indexOf('/');
    const owner = spec.name.slice(0, slash);
    const name = spec.name.slice(slash + 1);
    const host: HostTensor = { shape: [...spec.shape], dtype, data };
    if (owner === 'optimizer') optimizer[name] = host;
    else (models[owner] ??= {})[name] = host;
  }
  if (offset !== buffer.byteLength)
    throw new CheckpointError(`weights.bin has ${buffer.byteLength - offset} bytes beyond the manifest`);
  return { models, optimizer, state: validateState(rawState), topology: modelJson.modelTopology };
}

/** Download named tensors to host arrays (one read per tensor; checkpoints are rare). */
export async function toHost(tensors: Record<string, tf.Tensor>): Promise<Record<string, HostTensor>> {
  const out: Record<string, HostTensor> = {};
  for (const [name, t] of Object.entries(tensors)) {
    const dtype = t.dtype === 'int32' ? 'int32' : 'float32';
    const raw = await t.data();
    out[name] = { shape: [...t.shape], dtype, data: dtype === 'int32' ? Int32Array.from(raw) : Float32Array.from(raw) };
  }
  return out;
}

/** Host arrays back to tensors (the caller owns and disposes them). */
export function fromHost(host: Record<string, HostTensor>): Record<string, tf.Tensor> {
  const out: Record<string, tf.Tensor> = {};
  for (const [name, h] of Object.entries(host)) out[name] = tf.tensor(h.data, h.shape, h.dtype);
  return out;
}
