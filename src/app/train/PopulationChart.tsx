// The queue's runs side by side, live: one curve per run of the queue going now (or the last one this page ran),
// reloaded from storage every POLL_MS while it goes. A rider writes its lines into its own stored run as it rides
// (workerRiders.ts), so RetireOPD and OPD throughout draw together from the first shared student step, part at
// the retirement, and pure GRPO joins when its lane starts it. Each retirement is a marker.
import { useEffect, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import { MetricChart } from '../charts/MetricChart';
import { SERIES_COLORS } from '../charts/chartFrame';
import { ARMS } from '../charts/armIdentity';
import { figureTitle } from '../charts/figureTitle';
import { queueStore, runRepository, useRuns } from '../runs/storedRuns';
import { MEMBER_METRICS, memberRecord, queueMembers, type MemberMetric, type QueueMember } from '../runs/queueMembers';
import type { RunRecord, StoredMetrics } from '../runs/runRecord';
import type { RunQueue } from '../runs/runQueue';

/** How often the curves are reloaded from storage while the queue goes (ms). */
const POLL_MS = 2000;
const COLORS = SERIES_COLORS;
const UNIT: [number, number] = [0, 1];

/** The queue to draw: the one going now, else the last one this page saw going (its final curves stay up). */
function useShownQueue(): RunQueue | null {
  const activeId = useStore(queueStore, (s) => s.activeId);
  const queues = useStore(queueStore, (s) => s.queues);
  const [lastId, setLastId] = useState<string | null>(null);
  // remembered during render (React's "adjusting state when a prop changes"), not in an effect
  if (activeId !== null && activeId !== lastId) setLastId(activeId);
  const id = activeId ?? lastId;
  return queues.find((q) => q.id === id) ?? null;
}

/**
 * The members' records and student lines, reloaded every POLL_MS while `live`, once otherwise. The runs are the
 * queue's by id or, for riders not yet named by the queue, by queue id and label in the runs table.
 */
function useMemberData(queue: RunQueue | null, live: boolean) {
  const [data, setData] = useState<{ records: RunRecord[]; lines: Map<string, StoredMetrics[]> } | null>(null);
  const tableRuns = useRuns((s) => s.runs);
  const ids = useMemo(() => {
    if (!queue) return [];
    const found = queue.items.flatMap((item) => {
      const r = memberRecord(queue, item, tableRuns);
      return r ? [r.id] : item.runId !== null ? [item.runId] : [];
    });
    return [...new Set(found)];
  }, [queue, tableRuns]);
  const key = ids.join(',');
  useEffect(() => {
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const load = async () => {
      const repo = await runRepository();
      const records: RunRecord[] = [];
      const lines = new Map<string, StoredMetrics[]>();
      for (const id of key === '' ? [] : key.split(',')) {
        const record = await repo.getRun(id);
        if (!record) continue;
        records.push(record);
        lines.set(id, await repo.metrics(id, 'student'));
      }
      if (!alive) return;
      setData({ records, lines });
      if (live) timer = setTimeout(() => void load(), POLL_MS);
    };
    void load();
    return () => {
      alive = false;
      if (timer !== null) clearTimeout(timer);
    };
  }, [key, live]);
  return data;
}

function memberNote(m: QueueMember): string {
  const parts: string[] = [m.status === 'waiting' ? 'waiting for a lane to continue it' : m.status];
  if (m.detachedAt !== null) parts.push(`rode along to step ${m.detachedAt}`);
  if (m.triggerStep !== null) parts.push(`retired at step ${m.triggerStep}`);
  return parts.join(', ');
}

/** Shown only for a queue of two runs or more. */
export function PopulationChart() {
  const queue = useShownQueue();
  const live = useStore(queueStore, (s) => s.activeId !== null && s.activeId === queue?.id);
  const data = useMemberData(queue, live);
  const [metric, setMetric] = useState<MemberMetric>(MEMBER_METRICS[0].key);
  const members = useMemo(
    () => (queue && data ? queueMembers(queue, data.records, data.lines, metric) : []),
    [queue, data, metric],
  );
  const shown = useMemo(() => members.slice(0, COLORS.length), [members]);
  // a member that is one of the lesson's arms in its arm's colour; the others in the series colours, by place
  const colors = useMemo(() => shown.map((m, i) => (m.arm ? ARMS[m.arm].color : COLORS[i]!)), [shown]);
  const lines = useMemo(
    () => shown.map((m, i) => ({ name: m.name, points: m.points, color: colors[i]!, dots: false })),
    [shown, colors],
  );
  const markers = useMemo(
    () =>
      shown.flatMap((m, i) =>
        m.triggerStep === null ? [] : [{ x: m.triggerStep, label: `${m.name} retires`, color: colors[i]! }],
      ),
    [shown, colors],
  );
  if (!queue || queue.items.length < 2) return null;
  const def = MEMBER_METRICS.find((d) => d.key === metric)!;
  return (
    <section className="population" data-testid="population" aria-label="the queue's runs side by side">
      <h3>
        This queue’s runs side by side{live ? ' (live)' : ''}{' '}
        <label className="muted">
          metric{' '}
          <select
            aria-label="population metric"
            value={metric}
            onChange={(e) => setMetric(e.currentTarget.value as MemberMetric)}
          >
            {MEMBER_METRICS.map((d) => (
              <option key={d.key} value={d.key}>
                {d.title}
              </option>
            ))}
          </select>
        </label>
      </h3>
      <MetricChart
        testId="population-chart"
        title={`${def.title} — each run of the queue`}
        figureTitle={figureTitle(
          `${def.title[0]!.toUpperCase()}${def.title.slice(1)}, each run of the queue`,
          [queue.preset],
          queue.spec.seeds,
        )}
        lines={lines}
        markers={markers}
        yDomain={def.unit ? UNIT : undefined}
        xLabel="student step"
        note="Student stage, from each run’s stored lines (reloaded every 2 s while the queue goes). A run riding along another shares its steps until their schedules differ, so their curves coincide until then."
      />
      <ul className="population-legend">
        {shown.map((m, i) => (
          <li
            key={m.runId}
            data-testid="population-member"
            data-points={m.points.length}
            data-status={m.status}
            data-trigger={m.triggerStep ?? ''}
            data-arm={m.arm ?? ''}
            style={{ color: colors[i] }}
          >
            ■ <span className="population-name">{m.name}</span>{' '}
            <span className="muted">
              ({memberNote(m)}; {m.points.length > 0 ? `${m.points.length} points` : 'no student steps yet'})
            </span>
          </li>
        ))}
      </ul>
      {members.length > shown.length ? (
        <p className="muted">
          {members.length - shown.length} more runs are not drawn (the first {COLORS.length} are); compare them in the
          runs table.
        </p>
      ) : null}
    </section>
  );
}
