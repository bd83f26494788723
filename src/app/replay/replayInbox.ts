// A log handed to the gate replay view by another view (the Train view's "replay this run"): the files and the
// settings to replay them with. The replay view takes it when it mounts.
import { createStore } from 'zustand/vanilla';
import type { LoadedLog } from '../files/LogFilePicker';
import type { ReplaySettings } from './replayModel';

export interface ReplayHandoff {
  logs: LoadedLog[];
  settings: ReplaySettings;
}

export const replayInbox = createStore<{ pending: ReplayHandoff | null }>()(() => ({ pending: null }));

export function handToReplay(handoff: ReplayHandoff): void {
  replayInbox.setState({ pending: handoff });
}
