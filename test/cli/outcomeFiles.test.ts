import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outcomeFiles } from '../../cli/outcomeFiles';
import { ROOT } from '../../cli/presetFiles';
import { cellKey, helpsMapSchema } from '../../src/core/experiment/helpsMap';
import { seedSpreadSchema } from '../../src/core/experiment/seedSpread';

const files = outcomeFiles();
const shipped = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

describe('the shipped held-out result files', () => {
  it('are what the committed protocol pages make now (regenerate: node --import tsx cli/outcomeFiles.ts)', () => {
    expect(files.map((f) => f.path)).toEqual(['public/demo/seed-spread.json', 'public/outcomes/where-it-helps.json']);
    for (const f of files) expect(shipped(f.path), f.path).toBe(f.text);
  });

  it('place the recorded seed among the ten shell reporting seeds, as the shell page prints them', () => {
    const s = seedSpreadSchema.parse(JSON.parse(shipped('public/demo/seed-spread.json')));
    expect(s).toMatchObject({ seed: 1000, thisSeed: 16.7, n: 10, mean: 3.6, halfWidth: 11.6 });
    expect(s.source).toBe('docs/outcomes/protocol-shell-reporting.md');
  });

  it('hold one cell per environment, task world and misleading fraction the pages cover', () => {
    const m = helpsMapSchema.parse(JSON.parse(shipped('public/outcomes/where-it-helps.json')));
    const one = (x: number) => x.toFixed(1);
    expect(
      m.cells.map((c) => `${cellKey(c)} ${one(c.mean)}${c.halfWidth === null ? '' : ` ± ${one(c.halfWidth)}`}`),
    ).toEqual([
      'house#1@0 -7.2',
      'house#1@0.2 -0.4 ± 2.9',
      // shell's cells other than 0.375 come from the dose–response sweep (five seeds, each with an interval)
      'shell#1@0 -17.3 ± 12.9',
      'shell#1@0.125 -18.4 ± 13.2',
      'shell#1@0.25 -0.6 ± 6.1',
      'shell#1@0.375 3.6 ± 11.6',
      'shell#1@0.5 0.8 ± 8.3',
      'shell#1@0.625 -4.0 ± 10.5',
      // the two further task worlds of the dose–response page, each with its own teacher
      'shell#2@0 -9.1 ± 16.8',
      'shell#2@0.125 -8.6 ± 9.4',
      'shell#2@0.25 -0.4 ± 18.2',
      'shell#2@0.375 -5.1 ± 13.9',
      'shell#2@0.5 11.7 ± 10.8',
      'shell#2@0.625 10.4 ± 12.5',
      'shell#3@0 -2.3 ± 7.6',
      'shell#3@0.125 -1.1 ± 3.8',
      'shell#3@0.25 1.8 ± 15.4',
      'shell#3@0.375 -4.4 ± 4.0',
      'shell#3@0.5 4.6 ± 10.6',
      'shell#3@0.625 2.6 ± 26.9',
      // shop's dose–response page (three seeds per cell, six levels per world) replaces the protocol page's 0 (a
      // difference of two means); the page that checks its world-2 lead on fresh seeds is not a map page
      'shop#1@0 -5.0 ± 5.3',
      'shop#1@0.125 -1.3 ± 3.4',
      'shop#1@0.2 -4.6 ± 3.9',
      'shop#1@0.25 -9.3 ± 26.7',
      'shop#1@0.375 -1.4 ± 11.7',
      'shop#1@0.5 -4.2 ± 19.4',
      'shop#1@0.625 16.6 ± 35.5',
      'shop#2@0 -0.6 ± 9.1',
      'shop#2@0.125 3.5 ± 15.1',
      'shop#2@0.25 9.0 ± 7.9',
      'shop#2@0.375 9.8 ± 25.3',
      'shop#2@0.5 14.4 ± 6.0',
      'shop#2@0.625 15.0 ± 16.6',
      'shop#3@0 -5.4 ± 9.6',
      'shop#3@0.125 -1.9 ± 6.6',
      'shop#3@0.25 -6.9 ± 31.1',
      'shop#3@0.375 -0.6 ± 12.6',
      'shop#3@0.5 4.8 ± 7.9',
      'shop#3@0.625 -12.2 ± 79.6',
      // pooled over the three worlds: the mean of the worlds' means, t-interval over worlds
      'shell#-1@0 -9.6 ± 18.7',
      'shell#-1@0.125 -9.4 ± 21.5',
      'shell#-1@0.25 0.2 ± 3.3',
      'shell#-1@0.375 0.3 ± 21.5',
      'shell#-1@0.5 5.7 ± 13.7',
      'shell#-1@0.625 3.0 ± 17.9',
      'shop#-1@0 -3.7 ± 6.6',
      'shop#-1@0.125 0.1 ± 7.2',
      'shop#-1@0.25 -2.4 ± 24.7',
      'shop#-1@0.375 2.6 ± 15.6',
      'shop#-1@0.5 5.0 ± 23.1',
      'shop#-1@0.625 6.5 ± 40.2',
    ]);
  });
});
