// Ways to break a TRL trainer_state.json (one JSON document, log_history entries) for the replay fuzzing
// (replayCases.ts): each takes the whole text and returns the damaged text and what must happen.
import { type Expectation, lineAt, type Rng } from './replayFuzzBases';

export const TRL_BREAKERS: Record<string, (text: string, r: Rng, file: string) => [string, Expectation]> = {
  truncated: (t, r, file) => [t.slice(0, 1 + r.int(t.length - 2)), { kind: 'refuse', file }],
  'deeply nested': (_t, r, file) => {
    const d = r.pick([65, 10_000, 1_000_000]);
    return [`{"log_history": ${'['.repeat(d)}${']'.repeat(d)}}`, { kind: 'refuse', file, line: 1 }];
  },
  'deeply nested objects inside an entry': (t, _r, file) => [
    t.replace('"step": 1', `"deep": ${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}, "step": 1`),
    { kind: 'refuse', file, line: lineAt(t, t.indexOf('"step": 1')) },
  ],
  'log_history not an array': (_t, r, file) => [
    `{"log_history": ${r.pick(['{}', 'null', '3', '"x"'])}}`,
    { kind: 'refuse', file, line: 1 },
  ],
  'an entry that is not an object': (t, _r, file) => [
    t.replace('"log_history": [', '"log_history": [\n    7,'),
    { kind: 'refuse', file },
  ],
  'a blank step': (t, _r, file) => [t.replace('"step": 3\n', '"step": " "\n'), { kind: 'refuse', file }],
  'a NaN gap': (t, _r, file) => [
    t.replace(/("opd\/teacher_student_gap_mean": )-?[\d.]+/, '$1NaN'),
    { kind: 'refuse', file, line: lineAt(t, t.indexOf('{', t.indexOf('"log_history"'))) },
  ],
  'not a trainer state': (_t, r, file) => [
    r.pick(['{}', '{"a": [1,2,3]}', '[]', '{"log_history": [}']),
    { kind: 'refuse', file },
  ],
  'a random character replaced': (t, r, file) => {
    const at = r.int(t.length);
    return [t.slice(0, at) + r.pick(['"', '{', ']', ',', '\u0000', 'N']) + t.slice(at + 1), { kind: 'either', file }];
  },
};
