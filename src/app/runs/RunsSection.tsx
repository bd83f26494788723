// Below the Train view's live run: the run queue, the table of stored runs, and the compare view.
import { useEffect } from 'react';
import './runs.css';
import { CompareView } from './CompareView';
import { QueuePanel } from './QueuePanel';
import { RunsTable } from './RunsTable';
import { startRunsOnce } from './storedRuns';

export function RunsSection() {
  useEffect(() => startRunsOnce(), []);
  return (
    <div className="runs-section">
      <QueuePanel />
      <RunsTable />
      <CompareView />
    </div>
  );
}
