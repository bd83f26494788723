// A stored run record for the runs tests (src/app/runs).
import type { RunRecord } from '../../src/app/runs/runRecord';
import { CONFIG } from './runFixtures';

export function freshRecord(id = 'run-1'): RunRecord {
  return {
    id,
    createdAt: 1,
    updatedAt: 1,
    origin: 'tab',
    preset: 'unit',
    overrides: [],
    seed: CONFIG.seed,
    backendChoice: 'wasm',
    backend: null,
    config: CONFIG,
    status: 'running',
    stage: null,
    step: 0,
    totalSteps: 0,
    point: null,
    queueId: null,
    queueIndex: null,
    label: null,
    triggerStep: null,
    checkpoint: null,
    summary: null,
    error: null,
  };
}
