// The training worker's side of the trajectory viewer (probeProtocol.ts): it remembers the policies the trainer
// rolls out (the student: rollouts without the skill; the teacher: with it), and answers probe requests while the run
// is held, by sampling them with src/engine/trajectoryProbe.ts. Forward passes only; nothing is trained.
import type { AgentEnv } from '../../core/env/types';
import type { PolicyModel } from '../../engine/model';
import type { RolloutRequest } from '../../engine/trainer/enginePort';
import { probeTrajectories } from '../../engine/trajectoryProbe';
import type { RunControl } from './runControl';
import { PROBE_CHANNEL, type ProbeRequestMessage, type ProbeResponseMessage } from '../teaching/probeProtocol';

export class ProbeHost {
  private student: PolicyModel | null = null;
  private teacher: PolicyModel | null = null;
  private env: AgentEnv | null = null;
  private readonly channel: BroadcastChannel | null;
  private position: { stage: string | null; step: number | null } = { stage: null, step: null };

  constructor(private readonly control: RunControl) {
    this.channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(PROBE_CHANNEL);
    if (this.channel) this.channel.onmessage = (e: MessageEvent<ProbeRequestMessage>) => void this.answer(e.data);
  }

  setEnv(env: AgentEnv): void {
    this.env = env;
  }

  /** Called with every rollout request the trainer makes. */
  observe(request: RolloutRequest): void {
    if (request.withSkill) this.teacher = request.policy;
    else this.student = request.policy;
  }

  /** The step boundary the run is at (the trainer's step-boundary hook), reported with each answer. */
  at(stage: string, step: number): void {
    this.position = { stage, step };
  }

  close(): void {
    this.channel?.close();
  }

  private post(message: ProbeResponseMessage): void {
    this.channel?.postMessage(message);
  }

  private async answer(request: ProbeRequestMessage): Promise<void> {
    if (request?.type !== 'probe') return;
    const { nonce } = request;
    try {
      const env = this.env;
      const student = this.student;
      if (!env || !student) throw new Error('no policy to sample yet: the run must reach the teacher or student stage');
      const teacher = this.teacher;
      const episodes = await this.control.runWhileHeld(() =>
        probeTrajectories(env, student, teacher, {
          split: request.split,
          taskIndices: request.taskIndices,
          seed: request.seed,
          teacherEpisodes: request.teacherEpisodes,
        }),
      );
      this.post({ type: 'probe-result', nonce, episodes, ...this.position });
    } catch (error) {
      this.post({ type: 'probe-error', nonce, message: error instanceof Error ? error.message : String(error) });
    }
  }
}
