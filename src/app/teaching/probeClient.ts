// The page's side of the trajectory viewer's channel (probeProtocol.ts): one request, one answer (or an error after
// `timeoutMs`).
import type { ProbeEpisode } from '../../engine/trajectoryProbe';
import { PROBE_CHANNEL, type ProbeRequestMessage, type ProbeResponseMessage } from './probeProtocol';

export interface ProbeAnswer {
  episodes: ProbeEpisode[];
  stage: string | null;
  step: number | null;
}

export function requestProbe(
  request: Omit<ProbeRequestMessage, 'type' | 'nonce'>,
  timeoutMs = 60_000,
): Promise<ProbeAnswer> {
  const nonce = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const channel = new BroadcastChannel(PROBE_CHANNEL);
  return new Promise<ProbeAnswer>((resolve, reject) => {
    const timer = setTimeout(() => {
      channel.close();
      reject(
        new Error(`no answer from the training worker within ${timeoutMs / 1000} s (is a run going in this tab?)`),
      );
    }, timeoutMs);
    channel.onmessage = (e: MessageEvent<ProbeResponseMessage>) => {
      const m = e.data;
      if (m?.nonce !== nonce) return;
      clearTimeout(timer);
      channel.close();
      if (m.type === 'probe-result') resolve({ episodes: m.episodes, stage: m.stage, step: m.step });
      else reject(new Error(m.message));
    };
    channel.postMessage({ type: 'probe', nonce, ...request } satisfies ProbeRequestMessage);
  });
}
