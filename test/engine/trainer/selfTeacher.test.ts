// Self-distillation's teacher (src/engine/trainer/selfTeacher.ts): a frozen copy of the student, taken at steps
// 1, N + 1, 2N + 1, …, unchanged in between while the student moves, and disposed with the run's models.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyModel } from '../../../src/engine/model';
import { makeModelConfig } from '../../../src/engine/modelConfig';
import { selfTeacherFor } from '../../../src/engine/trainer/selfTeacher';
import type { RunModels } from '../../../src/engine/trainer/stages/stageContext';

const config = makeModelConfig('tiny', { vocabSize: 11, contextTokens: 8, width: 8, heads: 2, layers: 1, mlp: 8 });

/** The first weight of the model's first variable, to watch copies and changes. */
const firstWeight = (m: PolicyModel): number => (m.trainableVariables[0] as tf.Variable).dataSync()[0] as number;

/** Moves the student: every weight + 1 (stands in for an optimizer step). */
const step = (m: PolicyModel): void => {
  for (const v of m.trainableVariables) v.assign(tf.tidy(() => tf.add(v, 1)));
};

describe('the self-distillation teacher', () => {
  beforeAll(async () => {
    await tf.setBackend('cpu');
  });
  const models: RunModels = {};
  afterAll(() => {
    models.student?.dispose();
    models.selfTeacher?.dispose();
  });

  it('is the student as of the last step 1 + j·N, frozen in between, with its age in steps', () => {
    const student = new PolicyModel(config, 3, 'student');
    models.student = student;
    let made = 0;
    const newModel = (name: string) => {
      made++;
      return new PolicyModel(config, 9, name);
    };
    const N = 3;
    const seen: { k: number; teacher: number; student: number; age: number }[] = [];
    for (let k = 1; k <= 7; k++) {
      const s = selfTeacherFor(models, newModel, student, k, N);
      seen.push({ k, teacher: firstWeight(s.teacher), student: firstWeight(student), age: s.age });
      step(student);
    }
    const w0 = seen[0]!.student; // the student's weight at step 1; it grows by 1 per step
    // copies at k = 1, 4, 7: the teacher holds the student's weight of that step
    expect(seen.map((x) => x.teacher - w0)).toEqual([0, 0, 0, 3, 3, 3, 6].map((d) => expect.closeTo(d, 5)));
    expect(seen.map((x) => x.age)).toEqual([0, 1, 2, 0, 1, 2, 0]);
    expect(made).toBe(1); // one copy, refreshed in place
  });

  it('refuses a refresh period that is not a positive integer, naming the key', () => {
    const m = { student: models.student } as RunModels;
    expect(() => selfTeacherFor(m, () => models.student!, models.student!, 1, 0)).toThrow(
      /student\.distill\.refreshEvery must be an integer ≥ 1, got 0/,
    );
  });
});
