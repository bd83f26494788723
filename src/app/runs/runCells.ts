// The runs table's columns and how each cell reads: numbers formatted, absent values as "–", and a run that ended
// before its test evaluation saying so instead of "NaN%".
import { pointLabel } from './comparison';
import type { RunRecord } from './runRecord';

export type Column =
  'created' | 'preset' | 'changed' | 'seed' | 'backend' | 'status' | 'success' | 'trigger' | 'saved' | 'wall';

export const COLUMNS: { key: Column; label: string }[] = [
  { key: 'preset', label: 'preset' },
  { key: 'changed', label: 'changed keys' },
  { key: 'seed', label: 'seed' },
  { key: 'backend', label: 'backend' },
  { key: 'status', label: 'status' },
  { key: 'success', label: 'final success' },
  { key: 'trigger', label: 'trigger step' },
  { key: 'saved', label: 'teacher forwards saved' },
  { key: 'wall', label: 'wall s' },
];

export const changedKeys = (r: RunRecord) => (r.point ? pointLabel(r.point) : r.overrides.join(', '));

export function cell(r: RunRecord, c: Column): string | number | null {
  switch (c) {
    case 'created':
      return r.createdAt;
    case 'preset':
      return r.preset;
    case 'changed':
      return changedKeys(r);
    case 'seed':
      return r.seed;
    case 'backend':
      return r.backend ?? r.backendChoice;
    case 'status':
      return r.status;
    case 'success':
      return r.summary ? r.summary.test.successRate : null;
    case 'trigger':
      return r.triggerStep;
    case 'saved':
      return r.summary ? r.summary.gate.teacherForwardSkipped : null;
    case 'wall':
      return r.summary ? r.summary.wallSeconds : null;
  }
}

/** Why a run has no final success: it ended before its test evaluation. */
const untested = (r: RunRecord) =>
  r.status === 'failed' ? '– (failed before the test)' : r.status === 'completed' ? '–' : '– (stopped before the test)';

export const show = (r: RunRecord, c: Column): string => {
  const v = cell(r, c);
  if (c === 'success' && (v === null || !Number.isFinite(v))) return r.summary ? untested(r) : '–';
  if (v === null || v === '') return '–';
  if (c === 'success') return `${(100 * (v as number)).toFixed(1)}%`;
  if (c === 'wall') return (v as number).toFixed(1);
  return String(v);
};
