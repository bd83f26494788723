// The trajectory viewer's data (src/engine/trajectoryProbe.ts) on a fake environment, cpu backend: every token's
// class, and every policy token's student and teacher log-prob, checked against a float64 log-softmax of a direct
// forward pass over the same stream (the teacher's with its skill segment prepended); the episode's gap is the mean
// of (teacher − student) over its policy tokens. Tolerance 1e-4 (float32 forward).
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenClass } from '../../src/core/env/types';
import { PolicyModel } from '../../src/engine/model';
import { makeModelConfig } from '../../src/engine/modelConfig';
import { probeTrajectories, type ProbeEpisode } from '../../src/engine/trajectoryProbe';
import { makeFakeEnv } from '../engine/helpers/fakeEnv';

const env = makeFakeEnv();
const config = makeModelConfig('tiny', { vocabSize: 16, contextTokens: 48, width: 16, heads: 2, layers: 2, mlp: 32 });

function logSoftmax64(row: readonly number[]): number[] {
  const max = Math.max(...row);
  const z = row.reduce((acc, v) => acc + Math.exp(v - max), 0);
  return row.map((v) => v - max - Math.log(z));
}

/** log p(seq[t] | seq[<t]) for every t ≥ 1, from one direct forward of `model` */
function directLogProbs(model: PolicyModel, seq: number[]): number[] {
  const logits = tf.tidy(() => model.forward(tf.tensor2d([seq], [1, seq.length], 'int32'))).arraySync() as number[][][];
  return seq.map((tok, t) => (t === 0 ? 0 : (logSoftmax64(logits[0]?.[t - 1] as number[])[tok] as number)));
}

describe('probeTrajectories', () => {
  let student: PolicyModel;
  let teacher: PolicyModel;
  let episodes: ProbeEpisode[];
  beforeAll(async () => {
    await tf.setBackend('cpu');
    student = new PolicyModel(config, 3, 'probe-student');
    teacher = new PolicyModel(config, 4, 'probe-teacher');
    episodes = await probeTrajectories(env, student, teacher, {
      split: 'validation',
      taskIndices: [0, 1],
      seed: 5,
      teacherEpisodes: true,
    });
  });
  afterAll(() => {
    student.dispose();
    teacher.dispose();
  });

  it('samples one student and one teacher episode per task', () => {
    expect(episodes.map((e) => [e.policy, e.taskIndex])).toEqual([
      ['student', 0],
      ['student', 1],
      ['teacher', 0],
      ['teacher', 1],
    ]);
    for (const e of episodes) {
      const classes = new Set(e.tokens.map((t) => t.cls));
      expect(classes.has(TokenClass.actionHead) && classes.has(TokenClass.observation)).toBe(true);
      expect(classes.has(TokenClass.skill)).toBe(false); // the student's view, even of the teacher's episode
      expect(e.rendering.length).toBeGreaterThan(0);
    }
  });

  it('gives each policy token the student’s and the teacher’s log-prob of a direct forward pass', () => {
    let checked = 0;
    for (const e of episodes) {
      const seq = e.tokens.map((t) => t.id);
      const skill = env.task(e.split, e.taskIndex).skillTokens;
      const s = directLogProbs(student, seq);
      const withSkill = directLogProbs(teacher, [...skill, ...seq]).slice(skill.length);
      e.tokens.forEach((t, i) => {
        const policyToken = (t.cls === TokenClass.actionHead || t.cls === TokenClass.actionArg) && i > 0;
        if (!policyToken) {
          expect(t.student).toBeNull();
          expect(t.teacher).toBeNull();
          return;
        }
        expect(t.student as number).toBeCloseTo(s[i] as number, 4);
        expect(t.teacher as number).toBeCloseTo(withSkill[i] as number, 4);
        checked += 1;
      });
    }
    expect(checked).toBeGreaterThan(8);
  });

  it('reports the episode’s gap as the mean of teacher − student over its policy tokens', () => {
    for (const e of episodes) {
      const scored = e.tokens.filter((t) => t.student !== null && t.teacher !== null);
      const mean = scored.reduce((acc, t) => acc + (t.teacher as number) - (t.student as number), 0) / scored.length;
      expect(e.gap as number).toBeCloseTo(mean, 10);
    }
  });
});
