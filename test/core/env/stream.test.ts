import { describe, expect, it } from 'vitest';
import { Special, TokenClass as C } from '../../../src/core/env';
import { classifyStream } from '../../../src/core/env/stream';

const { pad, bos, eos, act, eoa, obs, skill } = Special;

describe('classifyStream', () => {
  it('classes a hand-written student stream by position', () => {
    // <bos> w w <act> head arg <eoa> <obs> o o <act> head <eoa> <obs> o <eos>
    const tokens = [bos, 20, 21, act, 30, 31, eoa, obs, 40, 41, act, 30, eoa, obs, 40, eos];
    const P = C.prompt, S = C.special, H = C.actionHead, A = C.actionArg, O = C.observation; // prettier-ignore
    expect(classifyStream(tokens)).toEqual([S, P, P, S, H, A, A, O, O, O, S, H, A, O, O, S]);
  });

  it('classes the teacher’s skill segment, padding included, as skill', () => {
    const tokens = [skill, 50, 51, pad, pad, bos, 20, act, 30, eoa];
    expect(classifyStream(tokens)).toEqual([
      C.skill, C.skill, C.skill, C.skill, C.skill, C.special, C.prompt, C.special, C.actionHead, C.actionArg,
    ]); // prettier-ignore
  });
});
