// The trajectory viewer during the playback of a recorded run: it samples one of the run's checkpoints in a worker of
// its own, by default the newest at or before the playhead. A shipped recording's checkpoints come from public/demo/
// (the start of the student stage, the retirement, the end: core/experiment/demoRecording.ts); a stored or imported
// run's from this browser's IndexedDB (runs/idbRunRepository.ts), whose bytes go to the worker as a recording's do.
import { useMemo, useState } from 'react';
import { demoCheckpointFiles } from '../demo/demoRecordings';
import { runRepository } from '../runs/storedRuns';
import type { PlaybackSource } from '../train/playbackStore';
import { probeRecordedCheckpoint } from './checkpointProbeClient';
import { TrajectoryViewer, type SampleRequest } from './TrajectoryViewer';

const STAGE_ORDER = ['demonstrations', 'sft', 'teacher', 'student', 'evaluation'];
const order = (stage: string | null, step: number) => (stage ? STAGE_ORDER.indexOf(stage) * 1e7 + step : -1);

export function RecordedCheckpointViewer({ source, frame }: { source: PlaybackSource; frame: number }) {
  const at = source.timeline.positions[frame];
  const here = order(at?.stage ?? null, at?.step ?? 0);
  const newest = useMemo(
    () => [...source.checkpoints].reverse().find((c) => order(c.stage, c.step) <= here) ?? source.checkpoints[0],
    [source, here],
  );
  const [picked, setPicked] = useState<string | null>(null);
  const name = picked ?? newest?.name ?? null;
  const { arm, recordId } = source;
  if ((!arm && !recordId) || !name) return null;
  const sample = async (request: SampleRequest) => {
    if (arm) {
      const files = await demoCheckpointFiles(arm, name);
      return probeRecordedCheckpoint(source.config, files, `demo/${arm}/checkpoints/${name}`, request);
    }
    const where = `stored run ${source.label} (${recordId ?? '?'}), checkpoints/${name}`;
    const files = recordId ? await (await runRepository()).checkpoints(recordId).read(name) : null;
    if (!files) throw new Error(`${where}: this browser no longer keeps that checkpoint`);
    return probeRecordedCheckpoint(source.config, files, where, request);
  };
  return (
    <TrajectoryViewer
      key={name}
      held
      sample={sample}
      heading={`Trajectories at the recorded checkpoint ${name}`}
      extra={
        <label>
          checkpoint{' '}
          <select
            data-testid="probe-checkpoint"
            value={name}
            onChange={(e) => setPicked(e.currentTarget.value === newest?.name ? null : e.currentTarget.value)}
          >
            {source.checkpoints.map((c) => (
              <option key={c.name} value={c.name}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
      }
    />
  );
}
