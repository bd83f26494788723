// Which stored runs the playback bar offers: a native <select> lays out every option, so thousands of imported runs
// would hold the page for seconds; the bar lists the most recently written ones and always the one playing.
import type { RunRecord } from '../runs/runRecord';

/** At most this many stored runs are options of the playback bar. */
export const PLAYABLE_RUNS_SHOWN = 200;

/** The runs the bar lists, most recently written first, the one playing (`playingId`) always among them. */
export function playableRuns(
  runs: readonly RunRecord[],
  playingId: string | null | undefined,
  limit: number = PLAYABLE_RUNS_SHOWN,
): RunRecord[] {
  if (runs.length <= limit) return [...runs];
  const recent = [...runs].sort((a, b) => b.updatedAt - a.updatedAt).slice(0, limit);
  const playing = playingId == null ? undefined : runs.find((r) => r.id === playingId);
  if (playing && !recent.includes(playing)) recent[limit - 1] = playing;
  return recent;
}
