// Checkpoints: model weights + optimizer state in the tfjs weights format, and the trainer's JSON state
// (stage, step, config, gate/schedule state, RNG scheme, counters). Storage-agnostic: a CheckpointStorage writes a
// checkpoint's files all-or-nothing (Node: temp folder + rename, cli/nodeCheckpointStorage.ts; the browser: one
// IndexedDB transaction, src/app/runs/idbRunRepository.ts).
//
// Files of one checkpoint:
//   model.json   tfjs-style: { format, generatedBy, modelTopology, weightsManifest: [{ paths: ['weights.bin'],
//                weights: [{ name, shape, dtype, group }] }] } — names are "<model>/<weight>" for the policies
//                (group 'model') and "optimizer/<name>" (group 'optimizer'), so tf.io.decodeWeights /
//                tf.io.loadWeights read them directly.
//   weights.bin  the concatenated little-endian float32/int32 buffers in manifest order.
//   state.json   the trainer's state (TrainerCheckpointState, versioned).
//   manifest.json what the checkpoint is (stage, step) and a sha256 + byte length of every other file
//                (CheckpointManifest): checked on load, so damaged bytes, a file from another checkpoint or a
//                missing file are refused instead of resuming from them. The hash is plain SHA-256 (hex) of the
//                file bytes: node:crypto in Node, WebCrypto's subtle.digest in a browser give the same.
// Decoding refuses (CheckpointError, a user error: the message names the file and what to do) anything it cannot
// rebuild exactly: malformed model.json, sizes that do not add up, unknown dtypes, duplicate or nameless weights,
// non-finite values. Which weights a run expects is checked by the trainer's state (trainerState.ts).
import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { CheckpointError, UserError } from '../../core/errors';
import type { HostTensor } from '../hostTensor';

export { CheckpointError };

const CHECKPOINT_FORMAT = 'retirelab-checkpoint';
const CHECKPOINT_VERSION = 1;

/** Files of one checkpoint, by file name. */
export type CheckpointFiles = Map<string, Uint8Array>;

/** SHA-256 of some bytes as 64 lowercase hex digits. */
export type Sha256 = (bytes: Uint8Array) => Promise<string>;

/** SHA-256 through WebCrypto (browsers, workers, Node ≥ 19): the default of storages without their own. */
export const webCryptoSha256: Sha256 = async (bytes) => {
  const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (!subtle) throw new Error('checkpoint hashing: no WebCrypto (crypto.subtle) in this context');
  const copy = bytes.slice();
  const digest = new Uint8Array(await subtle.digest('SHA-256', copy.buffer as ArrayBuffer));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
};

/** Where checkpoints live. Names are short slugs ("step-000040"); `latest` is the most recently written. */
export interface CheckpointStorage {
  /** SHA-256 for manifests (default webCryptoSha256; the Node storage uses node:crypto) */
  sha256?: Sha256;
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

const weightEntrySchema = z.object({
  name: z.string().regex(/^[^/]+\/.+$/, { message: 'expected "<model>/<weight>" or "optimizer/<name>"' }),
  shape: z
    .array(
      z
        .number()
        .int()
        .min(0)
        .max(1 << 24),
    )
    .max(8),
  dtype: z.enum(['float32', 'int32']),
  group: z.string().optional(),
});
const modelJsonSchema = z.object({
  format: z.literal(CHECKPOINT_FORMAT),
  version: z.literal(CHECKPOINT_VERSION),
  generatedBy: z.string().optional(),
  modelTopology: z.unknown(),
  weightsManifest: z
    .array(z.object({ paths: z.array(z.string()).length(1), weights: z.array(weightEntrySchema).max(100_000) }))
    .length(1),
});

/** "model.json: weightsManifest.0.weights.3.dtype: …" from a zod error, at most three issues. */
function issuesOf(file: string, error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
  return `${file}: ${shown.join('; ')}${error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : ''}`;
}

function parseJsonFile(files: CheckpointFiles, name: string): unknown {
  const f = files.get(name);
  if (!f) throw new CheckpointError(`checkpoint is missing ${name}`);
  try {
    return JSON.parse(decoder.decode(f));
  } catch (e) {
    throw new CheckpointError(`${name}: not valid JSON (${(e as Error).message.slice(0, 80)})`);
  }
}

/** Parse a checkpoint's files back into host arrays. `validateState` checks and types the JSON state. */
export function decodeCheckpoint<S>(files: CheckpointFiles, validateState: (raw: unknown) => S): CheckpointContent<S> {
  const parsed = modelJsonSchema.safeParse(parseJsonFile(files, 'model.json'));
  if (!parsed.success) throw new CheckpointError(issuesOf('model.json', parsed.error));
  const modelJson = parsed.data;
  const rawState = parseJsonFile(files, 'state.json');
  const group = modelJson.weightsManifest[0]!;
  const binName = group.paths[0]!;
  const bin = files.get(binName);
  if (!bin) throw new CheckpointError(`checkpoint is missing ${binName}`);
  // decodeWeights reads from an ArrayBuffer; copy so the slice starts at offset 0
  const buffer = bin.slice().buffer;
  const models: Record<string, Record<string, HostTensor>> = {};
  const optimizer: Record<string, HostTensor> = {};
  const seen = new Set<string>();
  let offset = 0;
  for (const spec of group.weights) {
    const dtype = spec.dtype;
    if (seen.has(spec.name)) throw new CheckpointError(`model.json: weight ${spec.name} appears twice`);
    seen.add(spec.name);
    const size = spec.shape.reduce((a, b) => a * b, 1);
    if (offset + size * 4 > buffer.byteLength)
      throw new CheckpointError(
        `${binName} is truncated at ${spec.name} (${buffer.byteLength} bytes, the manifest needs more)`,
      );
    const data =
      dtype === 'float32'
        ? new Float32Array(buffer, offset, size).slice()
        : new Int32Array(buffer, offset, size).slice();
    offset += size * 4;
    if (dtype === 'float32' && !data.every(Number.isFinite))
      throw new CheckpointError(`${binName}: weight ${spec.name} holds non-finite values (NaN or ±Infinity)`);
    const slash = spec.name.indexOf('/');
    const owner = spec.name.slice(0, slash);
    const name = spec.name.slice(slash + 1);
    if (owner === '__proto__' || name === '__proto__')
      throw new CheckpointError(`model.json: weight name ${spec.name} is not allowed`);
    const host: HostTensor = { shape: [...spec.shape], dtype, data };
    if (owner === 'optimizer') optimizer[name] = host;
    else (models[owner] ??= {})[name] = host;
  }
  if (offset !== buffer.byteLength)
    throw new CheckpointError(`${binName} has ${buffer.byteLength - offset} bytes beyond the manifest`);
  let state: S;
  try {
    state = validateState(rawState);
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new CheckpointError(`state.json: ${(e as Error).message}`);
  }
  return { models, optimizer, state, topology: modelJson.modelTopology };
}

/** The first non-finite value of a checkpoint's content, as "<model>/<weight>", or null when all are finite. */
export function firstNonFinite(content: Pick<CheckpointContent<unknown>, 'models' | 'optimizer'>): string | null {
  const groups: [string, Record<string, HostTensor>][] = [
    ...Object.entries(content.models),
    ['optimizer', content.optimizer],
  ];
  for (const [owner, tensors] of groups)
    for (const [name, h] of Object.entries(tensors))
      if (h.dtype === 'float32' && !h.data.every(Number.isFinite)) return `${owner}/${name}`;
  return null;
}

// ---------------------------------------------------------------- manifest

const MANIFEST_FILE = 'manifest.json';
const MANIFEST_FORMAT = 'retirelab-checkpoint-manifest';
const MANIFEST_VERSION = 1;

/** manifest.json: what the checkpoint is, and the length and SHA-256 (hex) of every other file. */
export interface CheckpointManifest {
  format: typeof MANIFEST_FORMAT;
  version: typeof MANIFEST_VERSION;
  /** the trainer stage and completed step the checkpoint was taken at (state.json says the same) */
  stage: string;
  step: number;
  files: Record<string, { bytes: number; sha256: string }>;
}

const manifestSchema = z.strictObject({
  format: z.literal(MANIFEST_FORMAT),
  version: z.literal(MANIFEST_VERSION),
  stage: z.string(),
  step: z.number().int().min(0),
  files: z.record(
    z.string(),
    z.strictObject({ bytes: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  ),
});

/** Add manifest.json to a checkpoint's files (returns the same map). */
export async function sealCheckpoint(
  files: CheckpointFiles,
  at: { stage: string; step: number },
  sha256: Sha256 = webCryptoSha256,
): Promise<CheckpointFiles> {
  const entries: CheckpointManifest['files'] = {};
  for (const [name, bytes] of files) {
    if (name === MANIFEST_FILE) continue;
    entries[name] = { bytes: bytes.byteLength, sha256: await sha256(bytes) };
  }
  const manifest: CheckpointManifest = {
    format: MANIFEST_FORMAT,
    version: MANIFEST_VERSION,
    stage: at.stage,
    step: at.step,
    files: entries,
  };
  files.set(MANIFEST_FILE, encoder.encode(JSON.stringify(manifest, null, 1)));
  return files;
}

/**
 * A copy of checkpoint `files` whose state.json holds `config` — as a run with that config would have written it —
 * resealed: the weights and optimizer files keep their bytes. How a run forked from a leader's checkpoint (a sweep's
 * shared prefix, a rider in the tab's population) gets its own. `where` names the checkpoint in the error.
 */
export async function withCheckpointConfig(
  files: CheckpointFiles,
  config: unknown,
  where: string,
  sha256: Sha256 = webCryptoSha256,
): Promise<CheckpointFiles> {
  const bytes = files.get('state.json');
  if (!bytes) throw new CheckpointError(`${where}: the checkpoint has no state.json`);
  const state = JSON.parse(decoder.decode(bytes)) as { stage: string; step: number };
  const copy: CheckpointFiles = new Map(files);
  copy.delete(MANIFEST_FILE);
  // encodeCheckpoint's own layout
  copy.set('state.json', encoder.encode(JSON.stringify({ ...state, config }, null, 1)));
  return sealCheckpoint(copy, { stage: state.stage, step: state.step }, sha256);
}

/**
 * Check a checkpoint's files against its manifest.json: every listed file present with its length and SHA-256, no
 * unlisted file. `where` names the checkpoint in messages (e.g. "checkpoints/student-000005"). Returns the manifest,
 * or null when there is none and `requireManifest` is false (checkpoints written before manifests existed).
 */
export async function verifyCheckpoint(
  files: CheckpointFiles,
  where: string,
  opts: { sha256?: Sha256; requireManifest: boolean },
): Promise<CheckpointManifest | null> {
  const raw = files.get(MANIFEST_FILE);
  if (!raw) {
    if (!opts.requireManifest) return null;
    throw new CheckpointError(
      `${where}: no ${MANIFEST_FILE}, so its files cannot be verified (damaged, or written by an older RetireLab); resume from another checkpoint or start the run again`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(raw));
  } catch {
    throw new CheckpointError(`${where}/${MANIFEST_FILE}: not valid JSON (damaged checkpoint)`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) throw new CheckpointError(issuesOf(`${where}/${MANIFEST_FILE}`, parsed.error));
  const manifest = parsed.data as CheckpointManifest;
  const sha256 = opts.sha256 ?? webCryptoSha256;
  for (const [name, want] of Object.entries(manifest.files)) {
    const bytes = files.get(name);
    if (!bytes) throw new CheckpointError(`${where}: ${name} is missing (listed in ${MANIFEST_FILE})`);
    if (bytes.byteLength !== want.bytes)
      throw new CheckpointError(
        `${where}/${name}: ${bytes.byteLength} bytes, ${MANIFEST_FILE} says ${want.bytes} (truncated or replaced)`,
      );
    if ((await sha256(bytes)) !== want.sha256)
      throw new CheckpointError(
        `${where}/${name}: SHA-256 does not match ${MANIFEST_FILE} (the bytes were changed, or the file comes from another checkpoint)`,
      );
  }
  for (const name of files.keys())
    if (name !== MANIFEST_FILE && !Object.hasOwn(manifest.files, name))
      throw new CheckpointError(`${where}: ${name} is not listed in ${MANIFEST_FILE}`);
  return manifest;
}
