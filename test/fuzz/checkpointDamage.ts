// The damage the checkpoint fuzzing does to a copy of a finished run folder (experimentFuzz.e2e.test.ts): each entry
// of REFUSED must make `--resume` refuse with one line, each of ACCEPTED must still resume to the undamaged run's
// summary. The run has a checkpoint every 2 student steps, all kept, LAST the newest; "resealed" damage rewrites
// manifest.json so only the content checks, not the hashes, can catch it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

export type Damage = (dir: string, r: () => number) => void;

export const LAST = 'student-000010';
export const EARLIER = 'student-000008';
const ck = (dir: string, name = LAST): string => join(dir, 'checkpoints', name);
const file = (dir: string, f: string, name = LAST): string => join(ck(dir, name), f);

/** Rewrite manifest.json so only the content checks (not the hashes) can catch the damage. */
function reseal(dir: string, name = LAST): void {
  const path = file(dir, 'manifest.json', name);
  const m = JSON.parse(readFileSync(path, 'utf8'));
  for (const f of Object.keys(m.files)) {
    const b = readFileSync(file(dir, f, name));
    m.files[f] = { bytes: b.byteLength, sha256: sha(b) };
  }
  writeFileSync(path, JSON.stringify(m));
}

function editModelJson(dir: string, edit: (m: { weightsManifest: { weights: { name: string }[] }[] }) => void): void {
  const path = file(dir, 'model.json');
  const m = JSON.parse(readFileSync(path, 'utf8'));
  edit(m);
  writeFileSync(path, JSON.stringify(m));
}

function editState(dir: string, edit: (s: Record<string, unknown>) => void, name = LAST): void {
  const path = file(dir, 'state.json', name);
  const s = JSON.parse(readFileSync(path, 'utf8'));
  edit(s);
  writeFileSync(path, JSON.stringify(s));
}

/** Byte offset and length of a named tensor in weights.bin. */
function locate(dir: string, name: string): { offset: number; bytes: number } {
  const m = JSON.parse(readFileSync(file(dir, 'model.json'), 'utf8'));
  let offset = 0;
  for (const w of m.weightsManifest[0].weights as { name: string; shape: number[] }[]) {
    const bytes = 4 * w.shape.reduce((a, b) => a * b, 1);
    if (w.name === name) return { offset, bytes };
    offset += bytes;
  }
  throw new Error(`no ${name}`);
}

/** Drop tensors whose name matches from model.json and weights.bin (consistently), then reseal. */
function dropTensors(dir: string, match: (name: string) => boolean): void {
  const m = JSON.parse(readFileSync(file(dir, 'model.json'), 'utf8'));
  const bin = readFileSync(file(dir, 'weights.bin'));
  const keep: Buffer[] = [];
  let offset = 0;
  const weights = m.weightsManifest[0].weights as { name: string; shape: number[] }[];
  for (const w of weights) {
    const bytes = 4 * w.shape.reduce((a, b) => a * b, 1);
    if (!match(w.name)) keep.push(bin.subarray(offset, offset + bytes));
    offset += bytes;
  }
  m.weightsManifest[0].weights = weights.filter((w) => !match(w.name));
  writeFileSync(file(dir, 'model.json'), JSON.stringify(m));
  writeFileSync(file(dir, 'weights.bin'), Buffer.concat(keep));
  reseal(dir);
}

export const REFUSED: Record<string, Damage> = {
  'weights.bin truncated': (d, r) => {
    const b = readFileSync(file(d, 'weights.bin'));
    writeFileSync(file(d, 'weights.bin'), b.subarray(0, Math.floor(r() * b.length)));
  },
  'weights.bin truncated, manifest resealed': (d, r) => {
    const b = readFileSync(file(d, 'weights.bin'));
    writeFileSync(file(d, 'weights.bin'), b.subarray(0, Math.floor(r() * b.length)));
    reseal(d);
  },
  'weights.bin with extra bytes, resealed': (d, r) => {
    const b = readFileSync(file(d, 'weights.bin'));
    writeFileSync(file(d, 'weights.bin'), Buffer.concat([b, Buffer.alloc(1 + Math.floor(r() * 64))]));
    reseal(d);
  },
  'finite garbage bytes in weights.bin': (d, r) => {
    const b = readFileSync(file(d, 'weights.bin'));
    const at = 4 * Math.floor((r() * b.length) / 4);
    b.writeFloatLE(0.5 + r(), at);
    writeFileSync(file(d, 'weights.bin'), b);
  },
  'NaN in a student weight, resealed': (d, r) => {
    const { offset, bytes } = locate(d, 'student/h0/mlp/fc/w');
    const b = readFileSync(file(d, 'weights.bin'));
    b.writeFloatLE(NaN, offset + 4 * Math.floor((r() * bytes) / 4));
    writeFileSync(file(d, 'weights.bin'), b);
    reseal(d);
  },
  'Infinity in an Adam moment, resealed': (d) => {
    const m = JSON.parse(readFileSync(file(d, 'model.json'), 'utf8'));
    const name = (m.weightsManifest[0].weights as { name: string }[]).find((w) => w.name.endsWith('/v'))!.name;
    const { offset } = locate(d, name);
    const b = readFileSync(file(d, 'weights.bin'));
    b.writeFloatLE(Infinity, offset);
    writeFileSync(file(d, 'weights.bin'), b);
    reseal(d);
  },
  'weights.bin from another step': (d) => {
    cpSync(file(d, 'weights.bin', EARLIER), file(d, 'weights.bin'));
  },
  'weights.bin from another step, resealed (the size matches)': (d) => {
    cpSync(file(d, 'weights.bin', EARLIER), file(d, 'weights.bin'));
    editState(d, (s) => s);
    reseal(d);
  },
  'whole checkpoint folder from another step': (d) => {
    rmSync(ck(d), { recursive: true });
    cpSync(ck(d, EARLIER), ck(d), { recursive: true });
  },
  'model.json null': (d) => writeFileSync(file(d, 'model.json'), 'null'),
  'model.json null, resealed': (d) => {
    writeFileSync(file(d, 'model.json'), 'null');
    reseal(d);
  },
  'model.json truncated': (d, r) => {
    const b = readFileSync(file(d, 'model.json'));
    writeFileSync(file(d, 'model.json'), b.subarray(0, Math.floor(r() * b.length)));
    reseal(d);
  },
  'model.json with a bad dtype, resealed': (d) => {
    editModelJson(d, (m) => {
      (m.weightsManifest[0]!.weights[0] as { dtype?: string }).dtype = 'float16';
    });
    reseal(d);
  },
  'model.json with a negative shape, resealed': (d) => {
    editModelJson(d, (m) => {
      (m.weightsManifest[0]!.weights[1] as { shape?: number[] }).shape = [-1, 4];
    });
    reseal(d);
  },
  'model.json weight listed twice, resealed': (d) => {
    editModelJson(d, (m) => {
      const w = m.weightsManifest[0]!.weights;
      w[1] = { ...w[0]! };
    });
    reseal(d);
  },
  'state.json version 2, resealed': (d) => {
    editState(d, (s) => (s.version = 2));
    reseal(d);
  },
  'state.json null, resealed': (d) => {
    writeFileSync(file(d, 'state.json'), 'null');
    reseal(d);
  },
  'state.json step changed, resealed': (d) => {
    editState(d, (s) => (s.step = 15));
    reseal(d);
  },
  'state.json config changed, resealed': (d) => {
    editState(d, (s) => ((s.config as { seed: number }).seed = 99));
    reseal(d);
  },
  'student weights renamed, resealed': (d) => {
    editModelJson(d, (m) => {
      for (const w of m.weightsManifest[0]!.weights) w.name = w.name.replace(/^student\//, 'studnet/');
    });
    reseal(d);
  },
  'one student weight missing, resealed': (d) => dropTensors(d, (n) => n === 'student/head/b'),
  'all optimizer entries missing, resealed': (d) => dropTensors(d, (n) => n.startsWith('optimizer/')),
  'Adam second moments missing, resealed': (d) => dropTensors(d, (n) => n.startsWith('optimizer/') && n.endsWith('/v')),
  'Adam step count missing, resealed': (d) => dropTensors(d, (n) => n === 'optimizer/iter'),
  'teacher missing, resealed': (d) => dropTensors(d, (n) => n.startsWith('teacher/')),
  'manifest.json deleted': (d) => rmSync(file(d, 'manifest.json')),
  'manifest.json garbage': (d, r) => writeFileSync(file(d, 'manifest.json'), Buffer.from([r() * 255, 0, 1, 2])),
  'manifest.json says another stage': (d) => {
    const m = JSON.parse(readFileSync(file(d, 'manifest.json'), 'utf8'));
    m.stage = 'teacher';
    writeFileSync(file(d, 'manifest.json'), JSON.stringify(m));
  },
  'state.json deleted': (d) => rmSync(file(d, 'state.json')),
  'weights.bin is a folder': (d) => {
    rmSync(file(d, 'weights.bin'));
    mkdirSync(file(d, 'weights.bin'));
  },
  'an unlisted file in the checkpoint': (d) => writeFileSync(file(d, 'extra.bin'), 'x'),
  'LATEST names a missing checkpoint': (d) => writeFileSync(join(d, 'checkpoints', 'LATEST'), 'student-000099'),
  'LATEST is a path': (d) => writeFileSync(join(d, 'checkpoints', 'LATEST'), '../../etc'),
  'LATEST is binary': (d) => writeFileSync(join(d, 'checkpoints', 'LATEST'), Buffer.from([0, 255, 10, 7])),
  'LATEST deleted, checkpoints remain': (d) => rmSync(join(d, 'checkpoints', 'LATEST')),
  // state.json edited by hand, manifest recomputed: the state checked against its config and itself
  'state.json S_T 1e9, resealed': (d) => {
    editState(d, (s) => (s.teacherPerformance = 1e9));
    reseal(d);
  },
  'state.json schedule name contradicts the config, resealed': (d) => {
    editState(d, (s) => ((s.schedule as { schedule: string }).schedule = 'never'));
    reseal(d);
  },
  'state.json fractional last_step, resealed': (d) => {
    editState(d, (s) => ((s.schedule as { last_step: number }).last_step = 9.5));
    reseal(d);
  },
  'state.json gate window size contradicts the config, resealed': (d) => {
    editState(d, (s) => ((s.schedule as { gate: { config: { window_size: number } } }).gate.config.window_size = 3));
    reseal(d);
  },
  'state.json gate forged to retire at step 3 (W = 5), resealed': (d) => {
    editState(d, (s) => ((s.schedule as { gate: { trigger_step: number } }).gate.trigger_step = 3));
    reseal(d);
  },
  'state.json gate of step 8 forged retired at step 3, resealed': (d) => {
    writeFileSync(join(d, 'checkpoints', 'LATEST'), EARLIER);
    editState(
      d,
      (s) => Object.assign((s.schedule as { gate: object }).gate, { retired: true, trigger_step: 3, opd_coef: 0 }),
      EARLIER,
    );
    reseal(d, EARLIER);
  },
  // the run's logs must hold every step the checkpoint has done
  'metrics.jsonl deleted': (d) => rmSync(join(d, 'metrics.jsonl')),
  'metrics.jsonl without its first steps': (d) => {
    const lines = readFileSync(join(d, 'metrics.jsonl'), 'utf8').split('\n');
    writeFileSync(join(d, 'metrics.jsonl'), lines.slice(3).join('\n'));
  },
  'sft.jsonl deleted': (d) => rmSync(join(d, 'sft.jsonl')),
  'config.json changed': (d) => {
    const c = JSON.parse(readFileSync(join(d, 'config.json'), 'utf8'));
    c.student.lambdaOpd = 0.25;
    writeFileSync(join(d, 'config.json'), JSON.stringify(c));
  },
  'config.json is a folder': (d) => {
    rmSync(join(d, 'config.json'));
    mkdirSync(join(d, 'config.json'));
  },
};

/** A lock owner on this host whose process has exited (a child that ran and was reaped). */
export function deadOwner(): { pid: number; host: string; since: string; token: string } {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return { pid: Number(r.stdout), host: hostname(), since: '2026-12-06T00:00:00.000Z', token: 'killed' };
}

/** The names a killed write leaves (removed on resume): none may remain after a resume. */
export const LEFTOVER = /^\.(tmp|old|LATEST)-|\.tmp-\d+$|^\.lock\.stale-/;

type Line = Record<string, number | null>;
/** Rewrite metrics.jsonl's lines. */
function editLog(dir: string, edit: (lines: string[]) => string[]): void {
  const path = join(dir, 'metrics.jsonl');
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  writeFileSync(path, edit(lines).join('\n') + '\n');
}
const editLine = (lines: string[], i: number, edit: (m: Line) => void): string[] =>
  lines.map((l, k) => {
    if (k !== i) return l;
    const m = JSON.parse(l) as Line;
    edit(m);
    return JSON.stringify(m);
  });

/**
 * Damage to the student log (10 steps, checkpoint at step 10, W = 5: windows end at steps 5 and 10) that a resume
 * must refuse naming metrics.jsonl:LINE: it would otherwise continue an unreplayable log. `r` picks where.
 */
export const LOG_DAMAGE: Record<string, Damage> = {
  'a step duplicated later in the log': (d, r) =>
    editLog(d, (ls) => {
      const i = Math.floor(r() * 9);
      const at = i + 1 + Math.floor(r() * (9 - i));
      return [...ls.slice(0, at), ls[i]!, ...ls.slice(at)];
    }),
  'two steps out of order': (d, r) =>
    editLog(d, (ls) => {
      const i = Math.floor(r() * 9);
      return ls.map((l, k) => (k === i ? ls[i + 1]! : k === i + 1 ? ls[i]! : l));
    }),
  'the log of two runs interleaved (a second writer)': (d, r) =>
    editLog(d, (ls) => {
      const i = 2 + Math.floor(r() * 7);
      return [...ls.slice(0, i), ...ls.slice(0, 3), ...ls.slice(i)];
    }),
  "a step's gap changed (the window K̄ the gate computed no longer follows)": (d, r) =>
    editLog(d, (ls) =>
      editLine(ls, Math.floor(r() * 10), (m) => {
        m['opd/teacher_student_gap_mean'] = (m['opd/teacher_student_gap_mean'] as number) * (1.5 + r());
      }),
    ),
  "a window's logged K̄ changed": (d, r) =>
    editLog(d, (ls) =>
      editLine(ls, r() < 0.5 ? 4 : 9, (m) => {
        m['retire_opd/k_window_mean'] = (m['retire_opd/k_window_mean'] as number) * (1.01 + r());
      }),
    ),
  'the checkpoint step logged with another window fill': (d) =>
    editLog(d, (ls) => editLine(ls, 9, (m) => void (m['retire_opd/window_fill'] = 3))),
};

export const ACCEPTED: Record<string, Damage> = {
  'an older checkpoint deleted': (d) => rmSync(ck(d, 'student-000004'), { recursive: true }),
  'a hidden file in the checkpoint': (d) => writeFileSync(file(d, '.DS_Store'), 'x'),
  'LATEST with a trailing newline': (d) => writeFileSync(join(d, 'checkpoints', 'LATEST'), `${LAST}\n`),
  'a stray temp folder': (d) => mkdirSync(join(d, 'checkpoints', '.tmp-student-000025-1-2-3')),
  // what a SIGKILL during a checkpoint write leaves (NodeCheckpointStorage), removed on resume with a note
  'a half-written checkpoint temp folder (SIGKILL mid-write)': (d) => {
    cpSync(ck(d), join(d, 'checkpoints', '.tmp-student-000012-4242-1-2'), { recursive: true });
    writeFileSync(join(d, 'checkpoints', '.tmp-student-000012-4242-1-2', 'weights.bin'), new Uint8Array(7));
  },
  'a checkpoint moved aside beside its replacement (.old-)': (d) =>
    cpSync(ck(d), join(d, 'checkpoints', `.old-${LAST}-4242-1-2`), { recursive: true }),
  'a checkpoint left only in its .old- folder (killed between the two renames)': (d) =>
    renameSync(ck(d, EARLIER), join(d, 'checkpoints', `.old-${EARLIER}-4242-1-2`)),
  'a LATEST temp file': (d) => writeFileSync(join(d, 'checkpoints', '.LATEST-4242-1-2'), EARLIER),
  'a summary.json temp file': (d) => writeFileSync(join(d, 'summary.json.tmp-4242'), '{"status": "comp'),
  // a lock whose process is gone (this host): taken over with a note
  'a stale lock of a killed run': (d) => writeFileSync(join(d, '.lock'), JSON.stringify(deadOwner())),
  'LATEST points at an earlier good checkpoint': (d) => writeFileSync(join(d, 'checkpoints', 'LATEST'), EARLIER),
  'config.json with a BOM': (d) =>
    writeFileSync(join(d, 'config.json'), `\uFEFF${readFileSync(join(d, 'config.json'), 'utf8')}`),
};
