// Which finished runs a sweep may fork from (`--share-from`, and npm run protocol's arms): completed run folders one
// or two levels down, by the prefix key of their config. The fork itself is checked end to end in
// prefixFork.e2e.test.ts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { leadersUnder } from '../../cli/prefixFork';
import { resolveConfig } from '../../src/core/experiment/config';
import { prefixKeyOf } from '../../src/core/experiment/configPrefix';
import { DEFAULT_CONFIG } from '../../src/core/experiment/configSchema';

const tmp = mkdtempSync(join(tmpdir(), 'prefix-leaders-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function runFolder(dir: string, config: unknown, status: string | null): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  if (status !== null) writeFileSync(join(dir, 'summary.json'), JSON.stringify({ status }));
}

describe('leadersUnder', () => {
  it('finds the completed runs of a protocol folder by prefix key, the first in name order', () => {
    const retire = resolveConfig({ seed: 1000 }, DEFAULT_CONFIG);
    const opd = resolveConfig({ student: { schedule: 'never' } }, retire);
    const otherSeed = resolveConfig({ seed: 1001 }, DEFAULT_CONFIG);
    const misleading0 = resolveConfig({ env: { misleadingSkillFraction: 0 } }, retire);
    runFolder(join(tmp, 'opd', 'seed-1000'), opd, 'completed');
    runFolder(join(tmp, 'retire', 'seed-1000'), retire, 'completed');
    runFolder(join(tmp, 'retire', 'seed-1001'), otherSeed, 'failed');
    runFolder(join(tmp, 'misleading0', 'seed-1000'), misleading0, null);
    const leaders = leadersUnder(tmp);
    // opd and retire share a prefix: the first folder in name order is the leader
    expect([...leaders.entries()]).toEqual([[prefixKeyOf(retire), join(tmp, 'opd', 'seed-1000')]]);
    expect(prefixKeyOf(opd)).toBe(prefixKeyOf(retire));
    // a sweep folder itself is searched as well, and a missing folder has no leaders
    expect(leadersUnder(join(tmp, 'retire')).get(prefixKeyOf(retire))).toBe(join(tmp, 'retire', 'seed-1000'));
    expect(leadersUnder(join(tmp, 'absent')).size).toBe(0);
  });
});
