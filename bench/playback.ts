// The playback's cost on the shipped retire-shell recording (public/demo/): reading it into a timeline, folding the
// whole run at once, and folding it frame by frame as a playing playhead does. `npx tsx bench/playback.ts`.
import { readFileSync } from 'node:fs';
import { readRecordedRun } from '../src/core/runLog/recordedRunFiles';
import { playbackTimeline, runLogAt, foldToFrame, lastFrame } from '../src/core/runLog/runPlayback';
import { EMPTY_RUN_LOG } from '../src/core/runLog/runLogFold';
const dir = 'public/demo/retire-shell';
const files = Object.fromEntries(
  ['config.json', 'metrics.jsonl', 'sft.jsonl', 'events.jsonl', 'summary.json'].map((f) => [
    f,
    readFileSync(`${dir}/${f}`, 'utf8'),
  ]),
);
let t0 = performance.now();
const { run } = readRecordedRun(dir, files);
const t = playbackTimeline(run);
const tRead = performance.now() - t0;
t0 = performance.now();
for (let i = 0; i < 20; i++) runLogAt(t, lastFrame(t));
const tWhole = (performance.now() - t0) / 20;
t0 = performance.now();
let s = runLogAt(t, 0);
for (let f = 1; f <= lastFrame(t); f++) s = foldToFrame(t, s, f - 1, f, EMPTY_RUN_LOG);
const tSteps = performance.now() - t0;
console.log(
  `frames ${lastFrame(t)}, events ${t.events.length}; read+timeline ${tRead.toFixed(1)} ms; fold whole run ${tWhole.toFixed(2)} ms; frame-by-frame to the end ${tSteps.toFixed(1)} ms (${((tSteps / lastFrame(t)) * 1000).toFixed(0)} µs/frame)`,
);
