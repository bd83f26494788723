// The runs of one queue drawn side by side while they train: the lesson's three arms queued together (RetireOPD with
// OPD throughout riding along its student stage, then pure GRPO; runQueue.ts), or any queue's points. Each member
// is one stored run — a rider's lines are written into its own stored run as it rides (workerRiders.ts) — so its
// curve grows beside its leader's from the first shared step. Pure: the Train view's PopulationChart loads the
// records and lines and draws what this returns.
import { parseScheduleSpec, type ScheduleKind } from '../../core/methodVocabulary';
import { METRIC } from '../../core/runLog/metricKeys';
import { ARMS, armOfSchedule, type Arm } from '../charts/armIdentity';
import { downsampleSeries, finitePoints, type SeriesPoint } from '../charts/downsampleSeries';
import type { RunQueue } from './runQueue';
import type { RunRecord, StoredMetrics } from './runRecord';

/** The per-step student metrics a member's curve can show (keys as docs/METHODS.md names them). */
export const MEMBER_METRICS = [
  { key: METRIC.valSuccessRate, title: 'validation success', unit: true },
  { key: METRIC.rolloutSuccessRate, title: 'rollout success', unit: true },
  { key: METRIC.actorEntropy, title: 'entropy (nats/token)', unit: false },
  { key: METRIC.opdTeacherStudentGapMean, title: 'mean teacher–student gap g (while the teacher runs)', unit: false },
] as const;

export type MemberMetric = (typeof MEMBER_METRICS)[number]['key'];

/** The method a schedule makes of the student stage, as the lesson names it: the arms' names (armIdentity.ts), and
 * these for the ablation gates. */
const METHOD_NAMES: Partial<Record<ScheduleKind, string>> = {
  'competence-only': 'competence-only gate',
  'alignment-only': 'alignment-only gate',
};

export interface QueueMember {
  runId: string;
  /** the method (by schedule) and, where the queue varies more than the schedule, the item's label */
  name: string;
  /** the lesson's arm the run is (its name and colour, armIdentity.ts), or null for another schedule */
  arm: Arm | null;
  /**
   * the stored run's status, or 'waiting': a rider that left its leader at the trigger, stored as interrupted
   * there, while the queue goes and has not continued it yet (it continues alone once a lane is free)
   */
  status: RunRecord['status'] | 'waiting';
  /** the student step the teacher retired at, if it did */
  triggerStep: number | null;
  /** the student step a rider left its leader at, if it rode */
  detachedAt: number | null;
  points: SeriesPoint[];
}

function methodName(schedule: string): string {
  const arm = armOfSchedule(schedule);
  if (arm) return ARMS[arm].name;
  try {
    const spec = parseScheduleSpec(schedule);
    return METHOD_NAMES[spec.kind] ?? `schedule ${schedule}`;
  } catch {
    return `schedule ${schedule}`;
  }
}

/**
 * An item's stored run: the one the queue names, else — a rider, whose stored run the queue names only once it
 * continues alone — the run stored under the queue's id and the item's label (the runs store creates riders' records
 * so, with the leader's).
 */
export function memberRecord(
  queue: RunQueue,
  item: RunQueue['items'][number],
  records: readonly RunRecord[],
): RunRecord | undefined {
  return (
    records.find((r) => item.runId !== null && r.id === item.runId) ??
    records.find((r) => r.queueId === queue.id && r.label === item.label)
  );
}

/** A rider that left its leader and waits, in a queue still going, for a lane to continue it alone. */
function waitingRider(queue: RunQueue, item: RunQueue['items'][number], record: RunRecord): boolean {
  return (
    queue.state === 'running' &&
    item.status === 'running' &&
    record.status === 'interrupted' &&
    (record.detachedAt ?? null) !== null
  );
}

/** Ids of the stored runs that left their leader and wait, in a queue still going, for a lane to continue them. */
export function waitingRiderIds(queues: readonly RunQueue[], records: readonly RunRecord[]): Set<string> {
  const ids = new Set<string>();
  for (const queue of queues)
    for (const item of queue.items) {
      const record = memberRecord(queue, item, records);
      if (record && waitingRider(queue, item, record)) ids.add(record.id);
    }
  return ids;
}

/**
 * The queue's started runs (those with a stored record), in queue order, each with its curve of `metric` over the
 * student steps stored so far. Names say the method; the item's label follows when the queue varies anything
 * besides the schedule (several seeds, another axis).
 */
export function queueMembers(
  queue: RunQueue,
  records: readonly RunRecord[],
  studentLines: ReadonlyMap<string, readonly StoredMetrics[]>,
  metric: MemberMetric,
  maxPoints?: number,
): QueueMember[] {
  const axes = Object.keys(queue.spec.axes ?? {});
  const onlySchedules =
    queue.spec.seeds.length <= 1 && axes.every((k) => k === 'student.schedule') && queue.items.length > 1;
  const members: QueueMember[] = [];
  for (const item of queue.items) {
    const record = memberRecord(queue, item, records);
    if (!record) continue;
    const method = methodName(record.config.student.schedule);
    const lines = studentLines.get(record.id) ?? [];
    members.push({
      runId: record.id,
      name: onlySchedules ? method : `${method} · ${item.label}`,
      arm: armOfSchedule(record.config.student.schedule),
      status: waitingRider(queue, item, record) ? 'waiting' : record.status,
      triggerStep: record.triggerStep ?? null,
      detachedAt: record.detachedAt ?? null,
      points: downsampleSeries(
        finitePoints(
          lines
            .filter((l) => l.stage === 'student')
            .map((l) => ({ x: l.step, y: l.line[metric] as number | null | undefined })),
        ),
        maxPoints,
      ),
    });
  }
  return members;
}
