// The runs table: every stored run (trained here or imported) with preset, changed keys, seed, backend, status,
// final test success, trigger step, teacher forwards saved and wall time; sortable by any column, filterable by
// text; tick runs to compare them; show, resume, export or delete each. Storage used is shown above it.
// Virtualized (@tanstack/react-virtual): the table scrolls in its own box and holds row elements only for the runs in
// view (plus a margin), so 10,000 imported runs render as fast as 50; spacer rows above and below keep the scroll
// height, and aria-rowcount / aria-rowindex tell assistive technology the whole table's size.
import { defaultRangeExtractor, useVirtualizer, type Range } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { isActive } from '../train/liveRunState';
import { useRun } from '../train/liveRun';
import { saveBlob } from '../files/download';
import { runZip } from './runExportZip';
import { waitingRiderIds } from './queueMembers';
import { queueStore, runRepository, useRuns, runsStore } from './storedRuns';
import { RunImport } from './RunImport';
import { cell, COLUMNS, show, type Column } from './runCells';

/** The running run's stage and step: only this cell re-renders as steps arrive, not the table. */
function LiveStep() {
  return <>{useRun((s) => `${s.stage ?? ''} ${s.step}/${s.totalSteps}`)}</>;
}

/** How often the storage used is re-estimated while a run writes (ms). */
const STORAGE_REESTIMATE_MS = 3000;

/** A row's height before it is measured (px: one line of 0.85rem text with its buttons). */
const ROW_PX = 30;
/** Rows rendered beyond the visible ones, on each side. */
const OVERSCAN = 12;
/** Up to this many runs every row is rendered (a short table needs no window; finding a row stays trivial). */
const ALL_ROWS = 100;

const bytes = (n: number) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : `${(n / 1024).toFixed(0)} kB`);

export function RunsTable() {
  const runs = useRuns((s) => s.runs);
  const selected = useRuns((s) => s.selected);
  const estimate = useRuns((s) => s.estimate);
  const error = useRuns((s) => s.error);
  const liveId = useRun((s) => s.recordId);
  const liveStatus = useRun((s) => s.status);
  const elsewhere = useRuns((s) => s.elsewhere);
  const queues = useStore(queueStore, (s) => s.queues);
  // riders that left their leader at its trigger: stored as interrupted until a free lane continues them
  const waiting = useMemo(() => waitingRiderIds(queues, runs), [queues, runs]);
  const [sort, setSort] = useState<{ by: Column; desc: boolean }>({ by: 'created', desc: true });
  const [filter, setFilter] = useState('');
  const busy = isActive(liveStatus);
  // a live run writes metrics, events and checkpoints as it goes: the storage used is asked again while it runs
  useEffect(() => {
    if (!busy) return;
    const t = setInterval(() => void runsStore.getState().reestimate(), STORAGE_REESTIMATE_MS);
    return () => clearInterval(t);
  }, [busy]);

  const rows = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const kept = f
      ? runs.filter((r) => COLUMNS.some((c) => show(r, c.key).toLowerCase().includes(f)) || r.id.includes(f))
      : runs;
    const sign = sort.desc ? -1 : 1;
    return [...kept].sort((a, b) => {
      const x = cell(a, sort.by);
      const y = cell(b, sort.by);
      if (x === y) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * sign;
    });
  }, [runs, filter, sort]);

  const scroller = useRef<HTMLDivElement>(null);
  const rangeExtractor = useCallback(
    (range: Range) =>
      range.count <= ALL_ROWS ? Array.from({ length: range.count }, (_, i) => i) : defaultRangeExtractor(range),
    [],
  );
  // the virtualizer's functions change with its range: this component renders anew with it (nothing memoized reads it)
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_PX,
    overscan: OVERSCAN,
    rangeExtractor,
    getItemKey: (i) => rows[i]?.id ?? i,
  });
  const shown = virtualizer.getVirtualItems();
  // the spacers' heights: what lies above the first rendered row and below the last (px)
  const above = shown[0]?.start ?? 0;
  const below = Math.max(0, virtualizer.getTotalSize() - (shown[shown.length - 1]?.end ?? 0));

  const exportRun = async (id: string) => {
    const zip = await runZip(await runRepository(), id);
    if (zip) saveBlob(new Blob([zip.bytes as BlobPart], { type: 'application/zip' }), zip.name);
  };

  return (
    <section className="runs" aria-label="stored runs">
      <h3>Runs</h3>
      <p className="muted" data-testid="storage-used">
        {runs.length} stored run{runs.length === 1 ? '' : 's'} in this browser
        {estimate ? ` · storage used ${bytes(estimate.usage)} of ${bytes(estimate.quota)}` : ''}
      </p>
      {error ? (
        <p role="alert" className="error">
          {error}{' '}
          <button type="button" onClick={() => runsStore.getState().setError(null)}>
            dismiss
          </button>
        </p>
      ) : null}
      <div className="runs-tools">
        <label>
          filter{' '}
          <input
            type="search"
            value={filter}
            placeholder="preset, key, status…"
            size={24}
            onChange={(e) => setFilter(e.currentTarget.value)}
          />
        </label>
        <RunImport />
      </div>
      <div className="table-scroll runs-scroll" ref={scroller}>
        <table data-testid="runs-table" aria-rowcount={rows.length + 1}>
          <thead>
            <tr aria-rowindex={1}>
              <th>compare</th>
              {COLUMNS.map((c) => (
                <th key={c.key} aria-sort={sort.by === c.key ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
                  <button
                    type="button"
                    className="sort"
                    onClick={() => setSort((s) => ({ by: c.key, desc: s.by === c.key ? !s.desc : false }))}
                  >
                    {c.label}
                    {sort.by === c.key ? (sort.desc ? ' ▼' : ' ▲') : ''}
                  </button>
                </th>
              ))}
              <th>actions</th>
            </tr>
          </thead>
          <tbody>
            {above > 0 ? (
              <tr aria-hidden="true" className="spacer">
                <td colSpan={COLUMNS.length + 2} style={{ height: above }} />
              </tr>
            ) : null}
            {shown.map(({ index }) => {
              const r = rows[index]!;
              const live = r.id === liveId && busy;
              // trained by another tab (it holds the run's lock): read-only here, its progress live from that tab
              const remote = live ? undefined : elsewhere[r.id];
              const status = live
                ? liveStatus
                : remote
                  ? 'running in another tab'
                  : waiting.has(r.id)
                    ? 'waiting for a lane'
                    : r.status;
              const resumable =
                !busy &&
                !waiting.has(r.id) &&
                r.checkpoint !== null &&
                (r.status === 'interrupted' || r.status === 'stopped');
              return (
                <tr
                  key={r.id}
                  ref={virtualizer.measureElement}
                  data-index={index}
                  aria-rowindex={index + 2}
                  data-testid="run-row"
                  data-run-id={r.id}
                  data-seed={r.seed}
                  data-status={status}
                >
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`compare run ${r.id}`}
                      checked={selected.includes(r.id)}
                      onChange={() => runsStore.getState().toggleSelected(r.id)}
                    />
                  </td>
                  {COLUMNS.map((c) => (
                    <td key={c.key} data-col={c.key}>
                      {c.key === 'status' ? (
                        <>
                          {status}
                          {live || remote || waiting.has(r.id) || status === 'interrupted' || status === 'stopped' ? (
                            <span className="muted" data-testid="run-row-step">
                              {' '}
                              {live ? (
                                <LiveStep />
                              ) : remote ? (
                                `${remote.stage ?? ''} ${remote.step}/${remote.totalSteps}`
                              ) : (
                                `${r.stage ?? ''} ${r.step}/${r.totalSteps}`
                              )}
                            </span>
                          ) : null}
                          {/* why it stopped: a full storage, a hole in its step lines (continue fixes both) */}
                          {!live && !remote && r.error !== null && r.status === 'interrupted' ? (
                            <span className="muted" data-testid="run-row-error">
                              {' '}
                              {r.error}
                            </span>
                          ) : null}
                        </>
                      ) : (
                        show(r, c.key)
                      )}
                    </td>
                  ))}
                  <td className="row-actions">
                    <button type="button" disabled={busy} onClick={() => void runsStore.getState().showRun(r.id)}>
                      show
                    </button>
                    {resumable ? (
                      <button
                        type="button"
                        data-testid="run-resume"
                        title="resume this run from its last checkpoint"
                        onClick={() => void runsStore.getState().resumeRun(r.id)}
                      >
                        continue
                      </button>
                    ) : null}
                    <button type="button" onClick={() => void exportRun(r.id)}>
                      export
                    </button>
                    <button
                      type="button"
                      disabled={live || remote !== undefined || r.status === 'running'}
                      title={
                        live || remote !== undefined || r.status === 'running'
                          ? 'a running run cannot be deleted: stop it first'
                          : 'delete this run, its lines, events and checkpoints'
                      }
                      onClick={() => void runsStore.getState().remove(r.id)}
                    >
                      delete
                    </button>
                  </td>
                </tr>
              );
            })}
            {below > 0 ? (
              <tr aria-hidden="true" className="spacer">
                <td colSpan={COLUMNS.length + 2} style={{ height: below }} />
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
    </section>
  );
}
