// "Where it helps": a small heatmap of RetireOPD − OPD throughout (test success, points, paired by seed) over
// environment × task world (env.seed, a row each) × teacher error level (env.misleadingSkillFraction). Each cell shows mean ± 95 % interval; it is
// coloured by sign only when the interval excludes 0, grey otherwise (a null), hatched grey when its source gives no
// interval. Cells come from the held-out pages (shipped file) and from this browser's own finished runs that pair up
// (configs equal but for the schedule). Clicking a cell lists its source and runs; a button queues the cell.
import { useEffect, useMemo, useState } from 'react';
import {
  ACROSS_WORLDS,
  cellKey,
  cellSign,
  cellText,
  runCells,
  type HelpsCell,
  type HelpsMap,
  type MapRun,
} from '../../core/experiment/helpsMap';
import { ENV_NAMES } from '../../core/methodVocabulary';
import { REPORTING_SEEDS } from '../../core/experiment/seedProtocol';
import { signedPoints } from '../../core/experiment/seedSpread';
import { worldName } from '../../core/experiment/taskWorlds';
import { cellQueue, CELL_ARMS } from './cellQueue';
import { queueStore, runsStore, useRuns } from '../runs/storedRuns';
import { fetchPresetCatalog } from '../train/presetCatalog';
import { shippedHelpsMap } from './helpsMapFile';
import './helps.css';

/** Seeds a queued cell trains by default: the first three reporting seeds, the pages' own seeds. */
const DEFAULT_SEEDS = 3;

function envOrder(a: string, b: string): number {
  const i = (ENV_NAMES as readonly string[]).indexOf(a);
  const j = (ENV_NAMES as readonly string[]).indexOf(b);
  return (i < 0 ? 99 : i) - (j < 0 ? 99 : j) || a.localeCompare(b);
}

function CellButton({ cell, own, selected, onPick }: CellProps) {
  const shown = cell ?? own;
  if (!shown) return <td className="helps-cell helps-empty">not measured</td>;
  return (
    <td className={`helps-cell helps-${cellSign(shown).replace(' ', '-')}${selected ? ' selected' : ''}`}>
      <button
        type="button"
        data-testid="helps-cell"
        data-cell={cellKey(shown)}
        data-sign={cellSign(shown)}
        aria-pressed={selected}
        onClick={onPick}
      >
        <span className="helps-mean">
          {signedPoints(shown.mean)}
          {shown.halfWidth === null || shown.n < 2 ? '' : ` ± ${shown.halfWidth.toFixed(1)}`}
        </span>
        <span className="helps-n">
          n = {shown.n}
          {shown.world === ACROSS_WORLDS ? ' worlds' : ''}
        </span>
        {cell && own ? <span className="helps-own">your runs: {signedPoints(own.mean)}</span> : null}
      </button>
    </td>
  );
}
interface CellProps {
  cell: HelpsCell | undefined;
  own: HelpsCell | undefined;
  selected: boolean;
  onPick: () => void;
}

export function HelpsView() {
  const [map, setMap] = useState<HelpsMap | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [picked, setPicked] = useState<string | null>(null);
  const [seeds, setSeeds] = useState(DEFAULT_SEEDS);
  const [queued, setQueued] = useState<string | null>(null);
  const runs = useRuns((s) => s.runs);
  useEffect(() => {
    let live = true;
    shippedHelpsMap().then(
      (m) => live && setMap(m),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, []);
  // the user's finished runs, paired into cells of their own
  const own = useMemo(() => {
    const mapRuns: MapRun[] = runs.map((r) => ({
      id: r.id,
      config: r.config,
      testSuccess: r.status === 'completed' || r.status === 'imported' ? (r.summary?.test.successRate ?? null) : null,
    }));
    return new Map(runCells(mapRuns).map((c) => [cellKey(c), c]));
  }, [runs]);
  const shipped = useMemo(() => new Map((map?.cells ?? []).map((c) => [cellKey(c), c])), [map]);
  const all = [...(map?.cells ?? []), ...own.values()];
  // one row per environment and task world ("shell", "shell, world 2"), then the row pooled over worlds
  const worldOrder = (w: number) => (w === ACROSS_WORLDS ? Infinity : w);
  const rows = [...new Map(all.map((c) => [`${c.env}#${c.world}`, { env: c.env, world: c.world }])).values()].sort(
    (a, b) => envOrder(a.env, b.env) || worldOrder(a.world) - worldOrder(b.world),
  );
  const rowName = (r: { env: string; world: number }) =>
    r.world === ACROSS_WORLDS
      ? `${r.env}, over worlds`
      : rows.some((o) => o.env === r.env && o.world !== r.world)
        ? `${r.env}, ${worldName(r.world)}`
        : r.env;
  const fractions = [...new Set(all.map((c) => c.misleadingFraction))].sort((a, b) => a - b);
  const pickedCell = picked === null ? null : (shipped.get(picked) ?? own.get(picked) ?? null);
  const pickedOwn = picked === null ? undefined : own.get(picked);
  const names = new Map(
    runs.map((r) => [r.id, r.label ?? `${r.preset} seed ${r.seed} (${r.config.student.schedule})`]),
  );

  const queueCell = async (c: HelpsCell) => {
    try {
      const queue = cellQueue(c, (await fetchPresetCatalog()).load(`retire-${c.env}`), seeds);
      // enqueue resolves when the queue has run to its end (queueStore.ts): say here if it was refused
      void queueStore
        .getState()
        .enqueue(queue)
        .then(() => {
          const refused = queueStore.getState().error;
          if (refused) setQueued(refused);
        });
      setQueued(`queued ${queue.items.length} runs (${seeds} seeds × ${CELL_ARMS.length} arms): see Train`);
    } catch (e) {
      setQueued(e instanceof Error ? e.message : String(e));
    }
  };

  return (
    <section className="helps-view" aria-label="where it helps">
      <h2>Where RetireOPD helps</h2>
      <p>
        RetireOPD − OPD throughout, test success in points, paired by seed: mean ± 95 % interval per cell. A cell is
        green or red only when its interval excludes 0; grey is no measurable difference; hatched grey has no interval.
      </p>
      <p className="muted" data-testid="helps-sparse">
        The map is sparse: the committed pages measured{' '}
        {map?.cells.filter((c) => c.world !== ACROSS_WORLDS).length ?? 0} cells (each environment at its preset’s
        misleading fraction and at 0 in its preset’s task world; the dose–response sweeps more levels and worlds, each
        world with a teacher of its own, and a row over worlds: the mean of the worlds’ means with an interval over
        worlds), and your own finished runs add cells where a RetireOPD run and an OPD-throughout run differ only in the
        schedule.
      </p>
      {error ? <p className="error">The shipped map did not load ({error}).</p> : null}
      <table className="helps-map" data-testid="helps-map">
        <thead>
          <tr>
            <th scope="col">environment (task world) ╲ misleading fraction</th>
            {fractions.map((f) => (
              <th scope="col" key={f}>
                {f}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ env, world }) => (
            <tr key={`${env}#${world}`}>
              <th scope="row">{rowName({ env, world })}</th>
              {fractions.map((f) => {
                const key = cellKey({ env, world, misleadingFraction: f });
                return (
                  <CellButton
                    key={key}
                    cell={shipped.get(key)}
                    own={own.get(key)}
                    selected={picked === key}
                    onPick={() => setPicked(picked === key ? null : key)}
                  />
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {pickedCell ? (
        <div className="helps-detail" data-testid="helps-detail">
          <h3>
            {pickedCell.env},{' '}
            {pickedCell.world === ACROSS_WORLDS
              ? 'over task worlds'
              : `${worldName(pickedCell.world)} (env.seed ${pickedCell.world})`}
            , at misleading fraction {pickedCell.misleadingFraction}
          </h3>
          <p data-testid="helps-detail-text">
            {cellText(pickedCell)} — {pickedCell.source}: {pickedCell.note}.
          </p>
          {pickedCell.perSeed ? (
            <p className="muted">
              per seed: {pickedCell.perSeed.map((p) => `${p.seed}: ${signedPoints(p.difference)}`).join(', ')}
            </p>
          ) : null}
          {pickedOwn && pickedOwn !== pickedCell ? <p>Your runs: {cellText(pickedOwn)}.</p> : null}
          {pickedCell.world === ACROSS_WORLDS ? (
            <p className="muted" data-testid="helps-pooled">
              A row over worlds pools the world rows above it; open or queue a world’s own cell to see or add its runs.
            </p>
          ) : pickedOwn ? (
            <ul data-testid="helps-runs">
              {pickedOwn.runIds.map((id) => (
                <li key={id}>
                  <a
                    href="#train"
                    onClick={() => {
                      void runsStore.getState().showRun(id);
                    }}
                  >
                    {names.get(id) ?? id}
                  </a>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted" data-testid="helps-no-runs">
              None of this browser’s runs is in this cell yet: the page’s runs are run folders on the machine that made
              it.
            </p>
          )}
          {pickedCell.world === ACROSS_WORLDS ? null : (
            <p className="buttons">
              <label>
                seeds{' '}
                <input
                  type="number"
                  min={1}
                  max={REPORTING_SEEDS.length}
                  value={seeds}
                  onChange={(e) => setSeeds(Math.max(1, Math.min(REPORTING_SEEDS.length, Number(e.target.value) || 1)))}
                />
              </label>{' '}
              <button type="button" data-testid="helps-queue" onClick={() => void queueCell(pickedCell)}>
                Queue this cell
              </button>
              {queued ? <span className="muted"> {queued}</span> : null}
            </p>
          )}
        </div>
      ) : null}
    </section>
  );
}
