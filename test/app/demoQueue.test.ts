// The Overview's "Train these three live": the queued runs must train exactly what the shipped recordings trained
// (else the Train view would not race them), whatever the presets say today.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoQueue } from '../../src/app/demo/demoQueue';
import { OVERVIEW_ARMS, trainsLikeRecording } from '../../src/core/experiment/demoRecording';
import { resolveConfig } from '../../src/core/experiment/config';
import { loadPreset } from '../../src/core/experiment/preset';
import { ROOT } from './appServer';

const preset = (name: string) =>
  loadPreset(name, (n) => JSON.parse(readFileSync(join(ROOT, 'public/presets', `${n}.json`), 'utf8')) as unknown);
const recorded = OVERVIEW_ARMS.map((arm) =>
  resolveConfig(JSON.parse(readFileSync(join(ROOT, 'public/demo', arm, 'config.json'), 'utf8')) as unknown),
);

describe('the Overview’s live queue', () => {
  it('queues one run per recorded arm, each training what its recording trained', () => {
    const queue = demoQueue(preset('retire-shell'), recorded);
    expect(queue.items.length).toBe(OVERVIEW_ARMS.length);
    recorded.forEach((config, i) =>
      expect(
        queue.items.some((item) => trainsLikeRecording(item.config, config)),
        `${OVERVIEW_ARMS[i]}: no queued run trains what public/demo/${OVERVIEW_ARMS[i]} trained (re-run npm run record-demo?)`,
      ).toBe(true),
    );
  });
});
