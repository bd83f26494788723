import * as tf from '@tensorflow/tfjs';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileSystemError } from '../../../src/core/errors';
import {
  CheckpointError,
  decodeCheckpoint,
  encodeCheckpoint,
  firstNonFinite,
  MemoryCheckpointStorage,
  sealCheckpoint,
  verifyCheckpoint,
  webCryptoSha256,
  type CheckpointContent,
  type CheckpointManifest,
} from '../../../src/engine/trainer/checkpoint';
import { NodeCheckpointStorage } from '../../../cli/nodeCheckpointStorage';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function content(step: number): CheckpointContent<{ step: number }> {
  return {
    models: {
      student: {
        'emb/w': { shape: [2, 3], dtype: 'float32', data: Float32Array.from([1, -2, 3.5, 1e-30, Math.PI, -0]) },
      },
      teacher: { 'head/b': { shape: [2], dtype: 'float32', data: Float32Array.from([0.25, step]) } },
    },
    optimizer: { iterations: { shape: [], dtype: 'int32', data: Int32Array.from([step]) } },
    state: { step },
    topology: { width: 3 },
  };
}

const validate = (raw: unknown): { step: number } => {
  if (typeof raw !== 'object' || raw === null || typeof (raw as { step?: unknown }).step !== 'number')
    throw new Error('bad state');
  return raw as { step: number };
};

describe('checkpoint encoding', () => {
  it('round-trips weights bit-exactly, keeps groups apart and leaks no tensors', async () => {
    const before = tf.memory().numTensors;
    const files = await encodeCheckpoint(content(7));
    expect(tf.memory().numTensors).toBe(before);
    const back = decodeCheckpoint(files, validate);
    expect(back.state).toEqual({ step: 7 });
    expect(Array.from(back.models.student!['emb/w']!.data)).toEqual(
      Array.from(content(7).models.student!['emb/w']!.data),
    );
    expect(Object.is(back.models.student!['emb/w']!.data[5], -0)).toBe(true);
    expect(back.optimizer.iterations!.dtype).toBe('int32');
    expect(Array.from(back.optimizer.iterations!.data)).toEqual([7]);
    expect(back.topology).toEqual({ width: 3 });
  });

  it('writes a tfjs weights manifest that tf.io.decodeWeights reads', async () => {
    const files = await encodeCheckpoint(content(3));
    const manifest = JSON.parse(new TextDecoder().decode(files.get('model.json')!)) as {
      weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
    };
    expect(manifest.weightsManifest[0]!.paths).toEqual(['weights.bin']);
    expect(manifest.weightsManifest[0]!.weights.map((w) => [w.name, w.group])).toEqual([
      ['student/emb/w', 'model'],
      ['teacher/head/b', 'model'],
      ['optimizer/iterations', 'optimizer'],
    ]);
    const map = tf.io.decodeWeights(files.get('weights.bin')!.slice().buffer, manifest.weightsManifest[0]!.weights);
    expect(Array.from(map['teacher/head/b']!.dataSync())).toEqual([0.25, 3]);
    Object.values(map).forEach((t) => t.dispose());
  });

  it('rejects a truncated weights file naming the weight', async () => {
    const files = await encodeCheckpoint(content(1));
    files.set('weights.bin', files.get('weights.bin')!.slice(0, 10));
    expect(() => decodeCheckpoint(files, validate)).toThrow(/weights.bin is truncated at student\/emb\/w/);
    files.delete('state.json');
    expect(() => decodeCheckpoint(files, validate)).toThrow(CheckpointError);
  });
});

describe('checkpoint storage', () => {
  it('node storage writes, lists, reads back and marks the latest; no temp folders remain', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ckpt-'));
    dirs.push(root);
    const store = new NodeCheckpointStorage(root);
    await store.write('step-000005', await encodeCheckpoint(content(5)));
    await store.write('step-000010', await encodeCheckpoint(content(10)));
    await store.write('step-000010', await encodeCheckpoint(content(11))); // overwrite replaces atomically
    expect(await store.list()).toEqual(['step-000005', 'step-000010']);
    expect(await store.latest()).toBe('step-000010');
    expect(readFileSync(join(root, 'LATEST'), 'utf8')).toBe('step-000010');
    expect(readdirSync(root).filter((f) => f.startsWith('.'))).toEqual([]);
    const back = decodeCheckpoint((await store.read('step-000010'))!, validate);
    expect(back.state.step).toBe(11);
    expect(await store.read('nope')).toBeNull();
  });

  it('memory storage returns copies, so later mutation cannot corrupt a saved checkpoint', async () => {
    const store = new MemoryCheckpointStorage();
    const files = await encodeCheckpoint(content(2));
    await store.write('a', files);
    files.get('weights.bin')!.fill(0);
    const back = decodeCheckpoint((await store.read('a'))!, validate);
    expect(back.models.teacher!['head/b']!.data[0]).toBe(0.25);
  });
});

describe('checkpoint manifest', () => {
  const at = { stage: 'student', step: 7 };

  it('node:crypto and WebCrypto give the same SHA-256, the known digest of "abc"', async () => {
    const abc = new TextEncoder().encode('abc');
    const want = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    expect(await new NodeCheckpointStorage('/nonexistent').sha256(abc)).toBe(want);
    expect(await webCryptoSha256(abc)).toBe(want);
  });

  it('lists every file with its length and hash, and verifies an intact checkpoint', async () => {
    const files = await sealCheckpoint(await encodeCheckpoint(content(7)), at);
    const m = JSON.parse(new TextDecoder().decode(files.get('manifest.json')!)) as CheckpointManifest;
    expect(m).toMatchObject({ format: 'retirelab-checkpoint-manifest', version: 1, stage: 'student', step: 7 });
    expect(Object.keys(m.files).sort()).toEqual(['model.json', 'state.json', 'weights.bin']);
    expect(m.files['weights.bin']!.bytes).toBe(files.get('weights.bin')!.byteLength);
    expect(await verifyCheckpoint(files, 'ck', { requireManifest: true })).toEqual(m);
  });

  it('refuses one changed byte, a file from another checkpoint, a missing file and an unlisted one', async () => {
    const seal = async (step: number) => sealCheckpoint(await encodeCheckpoint(content(step)), at);
    const flipped = await seal(7);
    const bin = flipped.get('weights.bin')!;
    bin[3] = bin[3]! ^ 1;
    await expect(verifyCheckpoint(flipped, 'ck', { requireManifest: true })).rejects.toThrow(
      'ck/weights.bin: SHA-256 does not match manifest.json',
    );
    const mixed = await seal(7);
    mixed.set('weights.bin', (await seal(8)).get('weights.bin')!);
    await expect(verifyCheckpoint(mixed, 'ck', { requireManifest: true })).rejects.toThrow(CheckpointError);
    const missing = await seal(7);
    missing.delete('state.json');
    await expect(verifyCheckpoint(missing, 'ck', { requireManifest: true })).rejects.toThrow(
      'ck: state.json is missing (listed in manifest.json)',
    );
    const extra = await seal(7);
    extra.set('x.bin', new Uint8Array(1));
    await expect(verifyCheckpoint(extra, 'ck', { requireManifest: true })).rejects.toThrow('x.bin is not listed');
    const none = await encodeCheckpoint(content(7));
    await expect(verifyCheckpoint(none, 'ck', { requireManifest: true })).rejects.toThrow(/no manifest\.json/);
    expect(await verifyCheckpoint(none, 'ck', { requireManifest: false })).toBeNull();
  });
});

describe('decoding refuses what it cannot rebuild exactly', () => {
  const enc = new TextEncoder();

  it('a model.json of null, a bad version or dtype, a duplicate weight: CheckpointError naming model.json', async () => {
    const cases: [unknown, RegExp][] = [
      [null, /^model\.json: \(root\)/],
      [{ format: 'retirelab-checkpoint', version: 2 }, /^model\.json: version/],
    ];
    for (const [json, message] of cases) {
      const files = await encodeCheckpoint(content(1));
      files.set('model.json', enc.encode(JSON.stringify(json)));
      expect(() => decodeCheckpoint(files, validate)).toThrow(message);
    }
    const files = await encodeCheckpoint(content(1));
    const m = JSON.parse(new TextDecoder().decode(files.get('model.json')!));
    m.weightsManifest[0].weights[1] = { ...m.weightsManifest[0].weights[0] };
    files.set('model.json', enc.encode(JSON.stringify(m)));
    expect(() => decodeCheckpoint(files, validate)).toThrow('model.json: weight student/emb/w appears twice');
    m.weightsManifest[0].weights[1].dtype = 'float16';
    files.set('model.json', enc.encode(JSON.stringify(m)));
    expect(() => decodeCheckpoint(files, validate)).toThrow(/weightsManifest\.0\.weights\.1\.dtype/);
  });

  it('non-finite weights and a state the validator refuses', async () => {
    const nan = content(1);
    nan.models.student!['emb/w']!.data[4] = NaN;
    expect(firstNonFinite(nan)).toBe('student/emb/w');
    expect(firstNonFinite(content(1))).toBeNull();
    const files = await encodeCheckpoint(nan);
    expect(() => decodeCheckpoint(files, validate)).toThrow(
      'weights.bin: weight student/emb/w holds non-finite values',
    );
    const bad = await encodeCheckpoint(content(1));
    bad.set('state.json', enc.encode('null'));
    expect(() => decodeCheckpoint(bad, validate)).toThrow(new CheckpointError('state.json: bad state'));
  });
});

describe('node storage and the file system', () => {
  it('reports a file where the checkpoint folder should be as a FileSystemError naming the path', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ckpt-'));
    dirs.push(root);
    writeFileSync(join(root, 'checkpoints'), 'not a folder');
    const store = new NodeCheckpointStorage(join(root, 'checkpoints'));
    const err = await store.write('step-000001', await encodeCheckpoint(content(1))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileSystemError);
    expect((err as FileSystemError).message).toMatch(/checkpoints\/step-000001: .* while writing a checkpoint/);
  });

  it('refuses a LATEST that names no plain checkpoint, and skips hidden files when reading', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ckpt-'));
    dirs.push(root);
    const store = new NodeCheckpointStorage(root);
    await store.write('step-000001', await encodeCheckpoint(content(1)));
    writeFileSync(join(root, 'step-000001', '.DS_Store'), 'x');
    expect([...(await store.read('step-000001'))!.keys()].sort()).toEqual(['model.json', 'state.json', 'weights.bin']);
    writeFileSync(join(root, 'LATEST'), '../../etc/passwd');
    await expect(store.latest()).rejects.toThrow(CheckpointError);
  });
});
