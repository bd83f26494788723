// What a main-thread long task was made of, for measureLongTasks.ts --trace: a Chromium trace (the renderer main
// thread's RunTask events and what ran inside them) and a V8 sampling profile, both over CDP. For each task over
// 50 ms it prints when it ran (s after the click on Start), how long it took, the trace events inside it, and the
// functions that took the most samples in it (self time, plus React components by their capitalised names).
// A diagnosis aid (build the app unminified to read the names), not a test.
import type { BrowserContext, CDPSession, Page } from 'playwright-core';

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { functionName?: string; url?: string; type?: string } };
}

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
}

export async function startLongTaskTrace(context: BrowserContext, page: Page): Promise<CDPSession> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  await cdp.send('Tracing.start', {
    categories: 'devtools.timeline,v8.execute,disabled-by-default-devtools.timeline',
    transferMode: 'ReturnAsStream',
  });
  return cdp;
}

export async function printLongTasks(cdp: CDPSession): Promise<void> {
  const { profile } = (await cdp.send('Profiler.stop')) as { profile: Profile };
  const complete = new Promise<{ stream?: string }>((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.end');
  const handle = (await complete).stream as string;
  let text = '';
  for (;;) {
    const chunk = await cdp.send('IO.read', { handle, size: 1 << 20 });
    text += chunk.base64Encoded ? Buffer.from(chunk.data, 'base64').toString('utf8') : chunk.data;
    if (chunk.eof) break;
  }
  const parsed = JSON.parse(text) as { traceEvents: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  if (!main) return console.log('no renderer main thread in the trace');
  const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined);
  const start = Math.min(...onMain.map((e) => e.ts));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const top = (m: Map<string, number>, n: number): string =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(0)}ms`)
      .join(' | ');
  for (const t of onMain.filter((e) => e.name === 'RunTask' && (e.dur as number) > 50_000)) {
    const end = t.ts + (t.dur as number);
    const inside = new Map<string, number>();
    for (const e of onMain) {
      if (e === t || e.ts < t.ts || e.ts + (e.dur as number) > end) continue;
      const d = e.args?.data;
      const key = [e.name, d?.functionName, d?.type].filter(Boolean).join(':');
      inside.set(key, (inside.get(key) ?? 0) + (e.dur as number));
    }
    const functions = new Map<string, number>();
    let time = profile.startTime;
    (profile.samples ?? []).forEach((id, i) => {
      time += profile.timeDeltas?.[i] ?? 0;
      if (time < t.ts || time > end) return;
      const dt = profile.timeDeltas?.[i + 1] ?? 0;
      const seen = new Set<string>();
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const f = byId.get(cur)!.callFrame;
        if (cur !== id && !/^[A-Z][a-z]/.test(f.functionName)) continue;
        const key = `${f.functionName || '(anonymous)'}:${f.lineNumber}`;
        if (seen.has(key)) continue;
        seen.add(key);
        functions.set(key, (functions.get(key) ?? 0) + dt);
      }
    });
    console.log(`long task at ${((t.ts - start) / 1e6).toFixed(1)} s, ${((t.dur as number) / 1000).toFixed(0)} ms`);
    console.log(`  trace:     ${top(inside, 6)}`);
    console.log(`  functions: ${top(functions, 14)}`);
  }
}
