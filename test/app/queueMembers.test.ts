import { describe, expect, it } from 'vitest';
import { applyOverrides } from '../../src/core/experiment/config';
import { loadPreset, PRESET_NAMES } from '../../src/core/experiment/preset';
import { METRIC } from '../../src/core/runLog/metricKeys';
import { queueMembers, waitingRiderIds } from '../../src/app/runs/queueMembers';
import { createQueue, type RunQueue } from '../../src/app/runs/runQueue';
import type { RunRecord, StoredMetrics } from '../../src/app/runs/runRecord';
import { lookupPreset } from '../support/presets';
import { freshRecord } from './runRecordFixtures';

const retireShell = () => loadPreset('retire-shell', lookupPreset, PRESET_NAMES);

/** The queue's items given stored runs `run-<i>` for the first `started` of them. */
function started(queue: RunQueue, count: number): RunQueue {
  return { ...queue, items: queue.items.map((it, i) => ({ ...it, runId: i < count ? `run-${i}` : null })) };
}

function recordOf(queue: RunQueue, i: number, patch: Partial<RunRecord> = {}): RunRecord {
  const base = freshRecord(`run-${i}`);
  return { ...base, config: queue.items[i]!.config, label: queue.items[i]!.label, ...patch };
}

const line = (runId: string, stage: StoredMetrics['stage'], step: number, success: number | null): StoredMetrics => ({
  runId,
  stage,
  step,
  line: { step, [METRIC.valSuccessRate]: success } as StoredMetrics['line'],
});

describe('queueMembers', () => {
  it('names the lesson’s three arms by method and draws each run’s student lines only', () => {
    const queue = started(
      createQueue(retireShell(), [], 'wasm', [0], { 'student.schedule': ['adaptive', 'never', 'none'] }),
      3,
    );
    const records = [
      recordOf(queue, 0, { triggerStep: 150, status: 'completed' }),
      recordOf(queue, 1, { detachedAt: 150, status: 'interrupted' }),
      recordOf(queue, 2),
    ];
    const lines = new Map([
      // an SFT line and a step without validation are not points of the curve
      ['run-0', [line('run-0', 'sft', 1, 0.9), line('run-0', 'student', 1, 0.25), line('run-0', 'student', 2, null)]],
      ['run-1', [line('run-1', 'student', 1, 0.25)]],
    ]);
    const members = queueMembers(queue, records, lines, METRIC.valSuccessRate);
    expect(members.map((m) => m.name)).toEqual(['RetireOPD', 'OPD throughout', 'GRPO']);
    expect(members.map((m) => m.arm)).toEqual(['retire', 'opd', 'grpo']);
    expect(members.map((m) => m.points)).toEqual([[{ x: 1, y: 0.25 }], [{ x: 1, y: 0.25 }], []]);
    expect(members.map((m) => [m.triggerStep, m.detachedAt])).toEqual([
      [150, null],
      [null, 150],
      [null, null],
    ]);
  });

  it('says a rider that left its leader waits while its queue goes, and says interrupted once the queue is paused', () => {
    const base = createQueue(retireShell(), [], 'wasm', [0], { 'student.schedule': ['adaptive', 'never'] });
    const going = {
      ...started(base, 2),
      items: started(base, 2).items.map((it) => ({ ...it, status: 'running' as const })),
    };
    const records = [
      recordOf(going, 0, { status: 'running' }),
      recordOf(going, 1, { detachedAt: 40, status: 'interrupted' }),
    ];
    const statuses = (q: RunQueue, rs: RunRecord[]) =>
      queueMembers(q, rs, new Map(), METRIC.valSuccessRate).map((m) => m.status);
    expect(statuses(going, records)).toEqual(['running', 'waiting']);
    // paused by hand: nothing will continue it until Resume
    expect(statuses({ ...going, state: 'paused' }, records)).toEqual(['running', 'interrupted']);
    // still riding (not detached): its own status
    const riding = [records[0]!, recordOf(going, 1, { status: 'running' })];
    expect(statuses(going, riding)).toEqual(['running', 'running']);
    // a run interrupted by a reload that never rode is interrupted, not waiting
    const reloaded = [records[0]!, recordOf(going, 1, { status: 'interrupted' })];
    expect(statuses(going, reloaded)).toEqual(['running', 'interrupted']);
  });

  it('lists the waiting riders of every queue still going, for the runs table', () => {
    const base = createQueue(retireShell(), [], 'wasm', [0], { 'student.schedule': ['adaptive', 'never'] });
    const going = {
      ...started(base, 2),
      items: started(base, 2).items.map((it) => ({ ...it, status: 'running' as const })),
    };
    const leader = recordOf(going, 0, { status: 'running' });
    const rider = recordOf(going, 1, { detachedAt: 40, status: 'interrupted' });
    const other = { ...freshRecord('run-9'), status: 'interrupted' as const, detachedAt: 12 }; // in no queue
    expect([...waitingRiderIds([going], [leader, rider, other])]).toEqual(['run-1']);
    expect(waitingRiderIds([{ ...going, state: 'paused' }], [leader, rider]).size).toBe(0);
    expect(waitingRiderIds([], [leader, rider]).size).toBe(0);
  });

  it('leaves out the items not started yet, and adds the item’s label when the queue varies more than the schedule', () => {
    const queue = started(
      createQueue(retireShell(), [], 'wasm', [0, 1], { 'student.schedule': ['adaptive', 'never'] }),
      3,
    );
    const records = [0, 1, 2].map((i) => recordOf(queue, i));
    const members = queueMembers(queue, records, new Map(), METRIC.valSuccessRate);
    expect(members).toHaveLength(3);
    expect(members[0]!.name).toBe(`RetireOPD · ${queue.items[0]!.label}`);
    expect(members.every((m) => m.points.length === 0)).toBe(true);
  });

  it('finds a rider’s stored run by the queue’s id and its label while the queue does not name it yet', () => {
    const queue = createQueue(retireShell(), [], 'wasm', [0], { 'student.schedule': ['adaptive', 'never'] });
    const leader = recordOf(queue, 0, { id: 'lead', queueId: queue.id });
    const rider = recordOf(queue, 1, { id: 'rider', queueId: queue.id });
    const elsewhere = recordOf(queue, 1, { id: 'other-queue', queueId: 'another' });
    const named = { ...queue, items: queue.items.map((it, i) => ({ ...it, runId: i === 0 ? 'lead' : null })) };
    expect(
      queueMembers(named, [elsewhere, rider, leader], new Map(), METRIC.valSuccessRate).map((m) => m.runId),
    ).toEqual(['lead', 'rider']);
  });

  it('names any other schedule by what it is', () => {
    const queue = started(
      createQueue(retireShell(), [], 'wasm', [0], { 'student.schedule': ['fixed:30', 'competence-only'] }),
      2,
    );
    const records = [0, 1].map((i) => recordOf(queue, i));
    expect(queueMembers(queue, records, new Map(), METRIC.valSuccessRate).map((m) => m.name)).toEqual([
      'schedule fixed:30',
      'competence-only gate',
    ]);
    // the config the record holds decides, not the queue's axis value
    const odd = recordOf(queue, 0, { config: applyOverrides(queue.items[0]!.config, ['student.schedule=never']) });
    expect(queueMembers(queue, [odd], new Map(), METRIC.valSuccessRate)[0]!.name).toBe('OPD throughout');
  });
});
