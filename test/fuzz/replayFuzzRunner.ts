// Runs replay fuzz cases through cli/replay.ts `main` in-process, with in-memory files fed in uneven chunks.
// Used two ways: imported (runCase, memoryIo), and as a child process of the fuzz test —
//   node --import tsx test/fuzz/replayFuzzRunner.ts SEED FIRST
// which prints `start I` before case I and `result {json}` after it, so the test can kill it when one input stalls
// (a synchronous endless loop blocks every timer in its own process, vitest's included) and carry on after it.
import { fileURLToPath } from 'node:url';
import { main, type ReplayIo } from '../../cli/replay';
import { replayFuzzCases } from './replayCases';
import type { FuzzCase } from './replayFuzzBases';

export interface Outcome {
  code: number | 'threw' | 'hung';
  stdout: string;
  stderr: string;
}

const encoder = new TextEncoder();

/** In-memory files, decoded as Node's file stream does (BOM kept, bad bytes → U+FFFD), in chunks of uneven size. */
export function memoryIo(
  files: FuzzCase['files'],
  chunkSeed: number,
  out: { stdout: string; stderr: string },
): ReplayIo {
  const contents = new Map(
    files.map(([name, content]) => [name, typeof content === 'string' ? encoder.encode(content) : content]),
  );
  return {
    stdout: (t) => void (out.stdout += t),
    stderr: (t) => void (out.stderr += t),
    async *readLog(path) {
      const bytes = contents.get(path);
      if (bytes === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
      let at = 0;
      let size = 1 + (chunkSeed % 13);
      while (at < bytes.length) {
        const piece = bytes.subarray(at, at + size);
        at += piece.length;
        const text = decoder.decode(piece, { stream: true });
        if (text !== '') yield text;
        size = size < 65_536 ? size * 3 + 1 : 65_536;
      }
      const rest = decoder.decode();
      if (rest !== '') yield rest;
    },
  };
}

/** Run main once; an async stall longer than `budgetMs` (a promise that never settles) counts as a hang. */
export async function runCase(argv: string[], io: ReplayIo, out: { stdout: string; stderr: string }, budgetMs: number) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<'hung'>((done) => {
    timer = setTimeout(() => done('hung'), budgetMs);
  });
  try {
    const code = await Promise.race([main(argv, io), hung]);
    return { code, ...out } satisfies Outcome;
  } catch {
    return { code: 'threw', ...out } satisfies Outcome;
  } finally {
    clearTimeout(timer);
  }
}

/** The argument list of a case: its files, then its options. */
export const argvOf = (c: FuzzCase) => [...c.files.map(([name]) => name), ...c.args];

async function runFrom(seed: number, first: number, budgetMs: number): Promise<void> {
  const cases = replayFuzzCases(seed);
  for (let i = first; i < cases.length; i++) {
    const c = cases[i] as FuzzCase;
    process.stdout.write(`start ${i}\n`);
    const out = { stdout: '', stderr: '' };
    const outcome = await runCase(argvOf(c), memoryIo(c.files, i, out), out, budgetMs);
    process.stdout.write(`result ${JSON.stringify({ i, ...outcome })}\n`);
  }
  process.stdout.write('done\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  void runFrom(Number(process.argv[2]), Number(process.argv[3] ?? 0), Number(process.argv[4] ?? 20_000));
}
