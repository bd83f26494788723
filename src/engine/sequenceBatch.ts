// Packing variable-length token streams into padded [B, T] host arrays and the shifted target tensors the losses
// take (lossTypes.ts convention: position t predicts token t + 1; class of the target; NO_TARGET past the end).
import * as tf from '@tensorflow/tfjs';
import { Special, TokenClass } from '../core/env/types';
import { shiftTargets } from './losses/lossTypes';

export interface PackedSequences {
  batch: number;
  seqLen: number;
  /** [B·T] row-major, <pad>-filled */
  tokens: Int32Array;
  /** [B·T] TokenClass per token (special for padding) */
  classes: Int32Array;
  lengths: Int32Array;
}

/** Pads sequences (optionally each preceded by a fixed-length prefix, e.g. the teacher's skill segment). */
export function packSequences(
  seqs: readonly { tokens: ArrayLike<number>; classes: ArrayLike<number>; prefix?: readonly number[] }[],
  prefixClass: number = TokenClass.skill,
): PackedSequences {
  const lens = seqs.map((s) => (s.prefix?.length ?? 0) + s.tokens.length);
  const seqLen = Math.max(2, ...lens);
  const batch = seqs.length;
  const tokens = new Int32Array(batch * seqLen).fill(Special.pad);
  const classes = new Int32Array(batch * seqLen).fill(TokenClass.special);
  const lengths = new Int32Array(batch);
  seqs.forEach((s, b) => {
    let o = b * seqLen;
    for (const t of s.prefix ?? []) {
      tokens[o] = t;
      classes[o++] = prefixClass;
    }
    for (let i = 0; i < s.tokens.length; i++) {
      tokens[o] = s.tokens[i] as number;
      classes[o++] = s.classes[i] as number;
    }
    lengths[b] = lens[b] as number;
  });
  return { batch, seqLen, tokens, classes, lengths };
}

/** Tensors of a packed batch: tokens [B, T], targets [B, T], targetClasses [B, T] (caller disposes). */
export interface SequenceTensors {
  tokens: tf.Tensor2D;
  targets: tf.Tensor2D;
  targetClasses: tf.Tensor2D;
  /** host [B]: real tokens per row (PolicyModel.forward's `lengths`) */
  lengths: Int32Array;
}

export function toTensors(p: PackedSequences): SequenceTensors {
  const { targets, targetClasses } = shiftTargets(p.tokens, p.classes, p.batch, p.seqLen, p.lengths);
  return {
    tokens: tf.tensor2d(p.tokens, [p.batch, p.seqLen], 'int32'),
    targets: tf.tensor2d(targets, [p.batch, p.seqLen], 'int32'),
    targetClasses: tf.tensor2d(targetClasses, [p.batch, p.seqLen], 'int32'),
    lengths: p.lengths,
  };
}

export function disposeTensors(t: SequenceTensors): void {
  t.tokens.dispose();
  t.targets.dispose();
  t.targetClasses.dispose();
}
