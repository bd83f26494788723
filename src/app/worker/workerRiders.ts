// Riders in the training worker: stored runs of the page's queue that ride along the run being trained (the
// leader) as followers (src/engine/trainer/followers.ts). They share its demonstrations, SFT and teacher stages —
// copied into each rider's stored run when the leader's student stage begins, as the CLI forks a run folder — and
// then every student step until their own schedule plans one differently. Each rider's stored run receives exactly
// the events and lines its run made alone would, and its own checkpoints. Where it leaves, its state after the last
// shared step is stored as its checkpoint and the run is marked to continue from there (RunRecorder.detach); the
// page's queue then continues it alone, unannounced (`continuation`), so its stored log equals the run made alone.
// Where the leader fails, each rider still riding is marked failed (to be run alone from scratch) — unless browser
// storage filled up: then, like the leader, each is stored 'interrupted', continuable from its own last checkpoint.
import { checkpointName } from '../../core/runLog/checkpointName';
import { foldPosition } from '../../core/runLog/runLogFold';
import type { BackendName } from '../../engine/backend';
import { encodeCheckpoint, sealCheckpoint, withCheckpointConfig } from '../../engine/trainer/checkpoint';
import type { FollowerEnd, FollowerSpec } from '../../engine/trainer/followers';
import type { RunCheckpointStore, RunRepository } from '../runs/runRepository';
import type { RideEnd, RiderLink } from './protocol';
import { RunRecorder } from './runRecorder';

/** Stages whose lines a rider takes over from its leader (everything before the student stage). */
const PREFIX = new Set(['demonstrations', 'sft', 'teacher']);

interface Riding {
  link: RiderLink;
  recorder: RunRecorder;
}

export class WorkerRiders {
  private riding: Riding[] = [];
  private asked = false;
  /** the riders' end writes (checkpoints, records), awaited by finish() */
  private writes: Promise<void>[] = [];
  private finished: Promise<void> | null = null;
  /** riders whose leader failed while they rode: failed or interrupted once finish() knows why */
  private lost: { riding: Riding; reason: string }[] = [];
  /** riders whose ride ended (left, stopped or lost) */
  private ended = new Set<Riding>();

  constructor(
    private readonly repo: RunRepository,
    private readonly leaderId: string,
    private readonly leader: RunRecorder,
    private readonly links: readonly RiderLink[],
    private readonly backend: BackendName,
    /** a rider stopped riding (told to the page) */
    private readonly onEnd: (runId: string, end: RideEnd, step: number | null, reason: string) => void,
    private readonly onStorageError: (error: unknown) => void,
  ) {}

  /**
   * The trainer's `followers` callback, at the start of the leader's student stage from step 0: each rider's stored
   * run gets the leader's logs so far (the stages before the student stage) and becomes a follower.
   */
  async specs(): Promise<FollowerSpec[]> {
    this.asked = true;
    await this.leader.flush();
    const metrics = (await this.repo.metrics(this.leaderId)).filter((m) => PREFIX.has(m.stage));
    // everything the leader logged before its student stage began (the fork point's checkpoint included)
    const all = [...(await this.repo.events(this.leaderId))].sort((a, b) => a.seq - b.seq);
    const begun = all.findLastIndex(
      (e) => e.event.type === 'stage' && e.event.stage === 'student' && e.event.status === 'start',
    );
    const events = begun < 0 ? all : all.slice(0, begun);
    const leaderCheckpoints = this.repo.checkpoints(this.leaderId);
    const forkName = await leaderCheckpoints.latest();
    const forkFiles = forkName ? await leaderCheckpoints.read(forkName) : null;
    const specs: FollowerSpec[] = [];
    for (const link of this.links) {
      const record = await this.repo.getRun(link.runId);
      if (!record) throw new Error(`rider ${link.runId} is not in this browser's storage (was it deleted?)`);
      await this.repo.append(
        metrics.map((m) => ({ ...m, runId: link.runId })),
        events.map((e) => ({ ...e, runId: link.runId })),
      );
      await this.repo.putRun(events.reduce((r, e) => foldPosition(r, e.event), record));
      const recorder = await RunRecorder.open(this.repo, link.runId, { onError: this.onStorageError });
      recorder.setBackend(this.backend);
      const config = recorder.current.config;
      // the fork point's checkpoint, as the run made alone wrote it: its own config in state.json
      if (forkName && forkFiles)
        await this.repo
          .checkpoints(link.runId)
          .write(forkName, await withCheckpointConfig(forkFiles, config, `leader’s ${forkName}`));
      const riding: Riding = { link, recorder };
      this.riding.push(riding);
      specs.push({
        config,
        storage: this.orderedStorage(link.runId, recorder),
        onEvent: (event) => recorder.record(event),
        end: (outcome) => this.writes.push(this.end(riding, outcome)),
      });
    }
    return specs;
  }

  /** A rider's checkpoint storage that stores every line before a checkpoint ahead of it (as workerPersistence.ts). */
  private orderedStorage(runId: string, recorder: RunRecorder): RunCheckpointStore {
    const storage = this.repo.checkpoints(runId);
    return {
      ...storage,
      write: async (name, files) => {
        await recorder.flush();
        await storage.write(name, files);
      },
    };
  }

  /**
   * After the leader's run: riders never asked are deleted; every rider's stored run is final once this resolves.
   * `storageFull`: the leader ended because browser storage filled up (the message says what to do) — the riders
   * still riding then end 'interrupted' with it, each continuable from its own last stored checkpoint. Only the
   * first call's argument counts.
   */
  finish(storageFull: string | null = null): Promise<void> {
    this.finished ??= this.settle(storageFull);
    return this.finished;
  }

  private async settle(storageFull: string | null): Promise<void> {
    if (!this.asked)
      // nothing was trained for them: their stored runs go (the queue starts them afresh later)
      for (const link of this.links) {
        await this.repo.deleteRun(link.runId);
        this.onEnd(link.runId, 'unasked', null, 'its leader did not begin its student stage from step 0 here');
      }
    await Promise.all(this.writes);
    if (storageFull !== null) {
      // riders lost with their leader, and riders whose ride never began (storage filled up while they were set up)
      for (const riding of this.riding.filter((r) => !this.ended.has(r) || this.lost.some((l) => l.riding === r))) {
        await riding.recorder.interruptForStorage(storageFull);
        this.onEnd(riding.link.runId, 'interrupted', riding.recorder.current.step, storageFull);
      }
    } else
      for (const { riding, reason } of this.lost) {
        await riding.recorder.fail(`its leader failed while it rode along (${reason}); it runs alone`);
        this.onEnd(riding.link.runId, 'lost', null, reason);
      }
    await Promise.all(this.riding.map((r) => r.recorder.flush()));
  }

  private async end(riding: Riding, outcome: FollowerEnd): Promise<void> {
    const { link, recorder } = riding;
    this.ended.add(riding);
    switch (outcome.kind) {
      case 'detached': {
        const storage = this.repo.checkpoints(link.runId);
        const name = checkpointName('student', outcome.step);
        const files = await encodeCheckpoint(outcome.resume);
        // its lines before the checkpoint are stored first: a reload between the two leaves no hole
        await recorder.flush();
        await storage.write(name, await sealCheckpoint(files, { stage: 'student', step: outcome.step }));
        await recorder.detach(name, outcome.step);
        this.onEnd(link.runId, 'detached', outcome.step, outcome.reason);
        return;
      }
      case 'stopped':
        await recorder.stop();
        this.onEnd(link.runId, 'stopped', outcome.step, 'its leader was stopped; it stopped at the same step');
        return;
      case 'lost':
        // why the leader failed is known only once its run is over (finish)
        this.lost.push({ riding, reason: outcome.reason });
        return;
      default: {
        const never: never = outcome;
        throw new Error(`unknown ride end ${JSON.stringify(never)}`);
      }
    }
  }
}
