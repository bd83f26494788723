// Race the recording: when the run in the Train view trains what a shipped recording trained (same config apart
// from its name and runtime.*, core/experiment/demoRecording.ts), the recording's validation success is drawn
// faintly behind the live curve.
import { useEffect, useState } from 'react';
import type { ExperimentConfig } from '../../core/experiment/config';
import { DEMO_ARMS, DEMO_SEED, trainsLikeRecording, type DemoArm } from '../../core/experiment/demoRecording';
import { METRIC } from '../../core/runLog/metricKeys';
import { downsampleSeries, finitePoints, type SeriesPoint } from '../charts/downsampleSeries';
import { demoRecording } from './demoRecordings';

export interface RaceRecording {
  arm: DemoArm;
  validationSuccess: SeriesPoint[];
}

/** The recording `config` races, or null (none matches, the recordings did not load, or no config). */
export function useRaceRecording(config: ExperimentConfig | null, enabled: boolean): RaceRecording | null {
  // the recording found for a config (a later config shows none until its own search ends)
  const [found, setFound] = useState<{ config: ExperimentConfig; race: RaceRecording } | null>(null);
  useEffect(() => {
    let live = true;
    if (!config || !enabled || config.seed !== DEMO_SEED) return;
    void Promise.all(DEMO_ARMS.map((a) => demoRecording(a).catch(() => null))).then((all) => {
      const match = all.find((r) => r && trainsLikeRecording(config, r.config));
      if (!live || !match) return;
      setFound({
        config,
        race: {
          arm: match.arm,
          validationSuccess: downsampleSeries(
            finitePoints(match.run.steps.student.map((l) => ({ x: l.step, y: l[METRIC.valSuccessRate] }))),
          ),
        },
      });
    });
    return () => {
      live = false;
    };
  }, [config, enabled]);
  return found && enabled && found.config === config ? found.race : null;
}
