// The run queue form and its progress: a preset (sweep presets bring their axes and seeds), axes to vary (one
// `key=v1,v2` per line, as `npm run sweep -- --vary`), seeds, overrides; the runs go one after another in the
// worker. The form starts empty; once a preset is chosen it says how many runs that makes and how long they should
// take here (queueEstimate.ts: this browser's measured step times) before anything is queued. The plan itself (the
// runs, their populations, the memory check) is made by a worker (queuePlanner.ts): 999 runs never hold the page.
// Progress per run and overall, with an ETA from the time spent so far.
import { useEffect, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import { useRun } from '../train/liveRun';
import { usePresetCatalog } from '../train/usePresetCatalog';
import { BACKEND_CHOICES, type BackendChoice } from '../../core/methodVocabulary';
import { isActive } from '../train/liveRunState';
import { DEFAULT_POPULATION_SIZE, queueProgress, type RunQueue } from './runQueue';
import { queueStore, runsStore, useRuns } from './storedRuns';
import { browserMemoryBudget } from './queueMemory';
import { estimateQueue, type MeasuredRun } from './queueEstimate';
import { createQueuePlanner } from './queuePlanner';
import type { QueueFormInput, QueuePlan } from './queuePlanProtocol';

/** The page's one planning worker, made on the form's first plan. */
const planner = createQueuePlanner();

type FormInput = Omit<QueueFormInput, 'budget' | 'now'>;

const axesText = (axes: Record<string, unknown[]>) =>
  Object.entries(axes)
    .map(([k, vs]) => `${k}=${vs.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(',')}`)
    .join('\n');

const duration = (s: number | null) =>
  s === null
    ? '…'
    : s < 90
      ? `${Math.round(s)} s`
      : s < 5400
        ? `${Math.round(s / 60)} min`
        : `${(s / 3600).toFixed(1)} h`;

/** The current run's share of its steps (all stages), 0…1. */
function useRunFraction(): number {
  return useRun((s) => {
    const c = s.config;
    if (!c || !s.stage) return 0;
    const order = ['sft', 'teacher', 'student'] as const;
    const steps = [c.sft.steps, c.teacher.steps, c.student.steps];
    const total = steps.reduce((a, b) => a + b, 0);
    if (s.stage === 'evaluation') return 0.99;
    const i = order.indexOf(s.stage as (typeof order)[number]);
    if (i < 0 || total === 0) return 0;
    return (steps.slice(0, i).reduce((a, b) => a + b, 0) + s.step) / total;
  });
}

function QueueProgressView({ queue }: { queue: RunQueue }) {
  const active = useStore(queueStore, (s) => s.activeId === queue.id);
  const startedAt = useStore(queueStore, (s) => s.startedAt);
  const startedFraction = useStore(queueStore, (s) => s.startedFraction);
  const fraction = useRunFraction();
  // run by another tab (it holds the queue's lock): read-only here, its runs' progress from that tab's channel
  const remote = useStore(queueStore, (s) => s.elsewhere.includes(queue.id));
  const remoteFraction = useRuns((s) => {
    const going = queue.items.flatMap((i) => (i.status === 'running' && i.runId ? [s.elsewhere[i.runId]] : []));
    const parts = going.map((g) => (g && g.totalSteps > 0 && g.stage === 'student' ? g.step / g.totalSteps : 0));
    return parts.length ? parts.reduce((a, b) => a + b, 0) / parts.length : 0;
  });
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  const p = queueProgress(queue, active ? fraction : remote ? remoteFraction : 0, 0);
  // the ETA counts only what ran since this page (re)started the queue
  const ran = p.fraction - startedFraction;
  const elapsed = startedAt ? (now - startedAt) / 1000 : 0;
  const eta = active && ran > 0 ? (elapsed / ran) * (1 - p.fraction) : null;
  return (
    <div className="queue" data-testid="queue" data-queue-id={queue.id} data-state={queue.state}>
      <div>
        <strong>{queue.preset}</strong> — {p.done}/{p.total} runs · {remote ? 'running in another tab' : queue.state}
        {active ? ` · ETA ${duration(eta)}` : ''} <progress max={1} value={p.fraction} aria-label="queue progress" />
        {!active && !remote && queue.state !== 'done' ? (
          <button type="button" onClick={() => void queueStore.getState().resume(queue.id)}>
            continue
          </button>
        ) : null}
        <button
          type="button"
          data-testid="queue-compare"
          disabled={!queue.items.some((i) => i.runId)}
          onClick={() => runsStore.getState().setSelected(queue.items.flatMap((i) => (i.runId ? [i.runId] : [])))}
        >
          compare its runs
        </button>
        {!active && !remote ? (
          <button type="button" onClick={() => void queueStore.getState().remove(queue.id)}>
            forget queue
          </button>
        ) : null}
      </div>
      <ol className="queue-items">
        {queue.items.map((it) => (
          <li key={it.label} data-testid="queue-item" data-status={it.status}>
            {it.label} — {it.status}
            {it.status === 'running' && active ? (
              <progress max={1} value={fraction} aria-label={`${it.label} progress`} />
            ) : null}
          </li>
        ))}
      </ol>
    </div>
  );
}

/** The queue's form, shown on demand (its preset list would double the Train form's preset options). */
function QueueForm() {
  const { catalog } = usePresetCatalog();
  const queueError = useStore(queueStore, (s) => s.error);
  const activeQueue = useStore(queueStore, (s) => s.activeId);
  const running = isActive(useRun((s) => s.status));
  // empty until a preset is chosen: a sweep preset queues many runs (schedules: 21), nothing is queued by default
  const [presetName, setPresetName] = useState('');
  const [axes, setAxes] = useState<string | null>(null);
  const [seeds, setSeeds] = useState<string | null>(null);
  const [overrides, setOverrides] = useState('');
  const [backend, setBackend] = useState<BackendChoice>('auto');
  const [population, setPopulation] = useState(String(DEFAULT_POPULATION_SIZE));

  const preset = useMemo(() => {
    try {
      return catalog && presetName !== '' ? catalog.load(presetName) : null;
    } catch {
      return null;
    }
  }, [catalog, presetName]);
  const axesShown = axes ?? (preset?.sweep ? axesText(preset.sweep.axes) : '');
  const seedsShown = seeds ?? (preset?.sweep?.seeds ?? [0, 1, 2]).join(',');
  // what the form holds now; the worker plans it (axes null: the preset's own axes and temperature matching)
  const input = useMemo(
    (): FormInput | null =>
      preset
        ? { preset, overrides, backend, seeds: seedsShown, axes: axes === null ? null : axesShown, population }
        : null,
    [preset, overrides, backend, seedsShown, axesShown, axes, population],
  );
  const [answer, setAnswer] = useState<{ input: FormInput; plan: QueuePlan | null; error: string | null } | null>(null);
  useEffect(() => {
    if (!input) return;
    let live = true;
    planner.plan({ ...input, budget: browserMemoryBudget(), now: Date.now() }).then(
      (plan) => {
        if (live && plan) setAnswer({ input, plan, error: null });
      },
      (e: unknown) => {
        if (live) setAnswer({ input, plan: null, error: e instanceof Error ? e.message : String(e) });
      },
    );
    return () => {
      live = false;
    };
  }, [input]);
  // the answer counts only for what the form holds now: until it arrives the form says it is planning
  const current = input !== null && answer?.input === input ? answer : null;
  const planning = input !== null && current === null;
  const built = { queue: current?.plan?.queue ?? null, error: current?.error ?? null };
  const populations = current?.plan?.populations ?? 0;
  const riding = current?.plan?.riding ?? 0;
  const runs = useRuns((s) => s.runs);
  const estimate = useMemo(() => {
    if (!built.queue) return null;
    const finished: MeasuredRun[] = runs.flatMap((r) =>
      r.status === 'completed' && r.summary
        ? [{ preset: r.preset, config: r.config, wallSeconds: r.summary.wallSeconds }]
        : [],
    );
    return estimateQueue(built.queue.preset, built.queue.items, finished);
  }, [built.queue, runs]);

  return (
    <form
      className="queue-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (built.queue) void queueStore.getState().enqueue(built.queue);
      }}
    >
      <label>
        preset{' '}
        <select
          aria-label="queue preset"
          value={presetName}
          onChange={(e) => {
            setPresetName(e.currentTarget.value);
            setAxes(null);
            setSeeds(null);
          }}
        >
          <option value="">choose a preset…</option>
          {(catalog?.names ?? []).map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
      </label>
      <label>
        seeds <input aria-label="queue seeds" value={seedsShown} onChange={(e) => setSeeds(e.currentTarget.value)} />
      </label>
      <label>
        backend{' '}
        <select
          aria-label="queue backend"
          value={backend}
          onChange={(e) => setBackend(e.currentTarget.value as BackendChoice)}
        >
          {BACKEND_CHOICES.map((b) => (
            <option key={b}>{b}</option>
          ))}
        </select>
      </label>
      <label title="runs trained at once by one worker: a leader and the runs that share its student steps until their schedules differ (1: one at a time)">
        population{' '}
        <input
          aria-label="queue population size"
          type="number"
          min={1}
          step={1}
          value={population}
          onChange={(e) => setPopulation(e.currentTarget.value)}
        />
      </label>
      <label className="wide">
        axes (one key=v1,v2 per line)
        <textarea
          aria-label="queue axes"
          rows={2}
          spellCheck={false}
          value={axesShown}
          onChange={(e) => setAxes(e.currentTarget.value)}
        />
      </label>
      <label className="wide">
        overrides (key=value per line)
        <textarea
          aria-label="queue overrides"
          rows={2}
          spellCheck={false}
          value={overrides}
          placeholder="student.steps=20"
          onChange={(e) => setOverrides(e.currentTarget.value)}
        />
      </label>
      <button
        type="submit"
        className="primary"
        disabled={!built.queue || running || activeQueue !== null}
        data-testid="queue-start"
      >
        Queue {built.queue ? built.queue.items.length : ''} runs
      </button>
      {built.queue ? (
        <p className="muted queue-estimate" data-testid="queue-estimate">
          {built.queue.items.length} runs of {built.queue.preset},{' '}
          {estimate
            ? `about ${duration(estimate.seconds)} one after another (${estimate.basis})`
            : `no time estimate yet: no ${built.queue.preset} or ${built.queue.items[0]?.config.env.name ?? ''} run has finished in this browser`}
          {riding > 0
            ? `; ${riding} of them ride along another run's student steps until their schedules differ (${populations} populations), so it takes less`
            : ''}
        </p>
      ) : null}
      {planning ? (
        <p className="muted" role="status" data-testid="queue-planning">
          planning the runs…
        </p>
      ) : null}
      {built.error ? (
        <p role="alert" className="error">
          {built.error}
        </p>
      ) : null}
      {queueError ? (
        <p role="alert" className="error">
          {queueError}
        </p>
      ) : null}
    </form>
  );
}

export function QueuePanel() {
  const queues = useStore(queueStore, (s) => s.queues);
  const [open, setOpen] = useState(false);
  return (
    <section className="queue-panel" aria-label="run queue">
      <h3>Queue an ablation</h3>
      {open ? (
        <QueueForm />
      ) : (
        <button type="button" data-testid="queue-open" onClick={() => setOpen(true)}>
          Queue runs of a preset over axes and seeds…
        </button>
      )}
      {[...queues].reverse().map((q) => (
        <QueueProgressView key={q.id} queue={q} />
      ))}
    </section>
  );
}
