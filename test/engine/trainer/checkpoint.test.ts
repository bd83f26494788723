import * as tf from '@tensorflow/tfjs';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CheckpointError,
  decodeCheckpoint,
  encodeCheckpoint,
  MemoryCheckpointStorage,
  type CheckpointContent,
} from '../../../src/engine/trainer/checkpoint';
import { NodeCheckpointStorage } from '../../../src/engine/trainer/nodeCheckpointStorage';

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
