// The shipped recordings (public/demo/, written by `npm run record-demo`) as the page reads them: the manifest, each
// arm's run folder files read into a playable RecordedRun (core/runLog/recordedRunFiles.ts), and a recorded
// checkpoint's files for the trajectory viewer. Fetched from the app's own server (precached by the service worker),
// once per page.
import type { ExperimentConfig } from '../../core/experiment/config';
import {
  DEMO_FOLDER,
  type DemoArm,
  type DemoArmManifest,
  type DemoManifest,
} from '../../core/experiment/demoRecording';
import { SEED_SPREAD_FILE, seedSpreadSchema, type SeedSpread } from '../../core/experiment/seedSpread';
import { readRecordedRun } from '../../core/runLog/recordedRunFiles';
import type { RecordedRun } from '../../core/runLog/runPlayback';
import { appRoot } from '../appRoot';

export interface DemoRecording {
  arm: DemoArm;
  entry: DemoArmManifest;
  config: ExperimentConfig;
  run: RecordedRun;
}

const demoUrl = (path: string) => `${appRoot().href}${DEMO_FOLDER}/${path}`;

async function fetchOk(url: string): Promise<Response> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: the server answered ${res.status}`);
  return res;
}

let manifest: Promise<DemoManifest> | null = null;

export function demoManifest(): Promise<DemoManifest> {
  manifest ??= fetchOk(demoUrl('manifest.json'))
    .then((r) => r.json() as Promise<DemoManifest>)
    .catch((e: unknown) => {
      manifest = null;
      throw e;
    });
  return manifest;
}

let spread: Promise<SeedSpread> | null = null;

/** Where the recorded seed sits among the reporting seeds (seed-spread.json beside the manifest, generated from the
 *  held-out page by cli/outcomeFiles.ts). */
export function demoSeedSpread(): Promise<SeedSpread> {
  spread ??= fetchOk(demoUrl(SEED_SPREAD_FILE))
    .then(async (r) => {
      const parsed = seedSpreadSchema.safeParse(await r.json());
      if (!parsed.success) throw new Error(`${demoUrl(SEED_SPREAD_FILE)}: ${parsed.error.issues[0]?.message ?? '?'}`);
      return parsed.data;
    })
    .catch((e: unknown) => {
      spread = null;
      throw e;
    });
  return spread;
}

const recordings = new Map<DemoArm, Promise<DemoRecording>>();

/** One arm's recording, read and validated (its config by the core's schema). */
export function demoRecording(arm: DemoArm): Promise<DemoRecording> {
  let p = recordings.get(arm);
  if (!p) {
    p = (async () => {
      const entry = (await demoManifest()).arms.find((a) => a.preset === arm);
      if (!entry) throw new Error(`${demoUrl('manifest.json')}: no recording of ${arm}`);
      const logs = entry.files.filter((f) => !f.path.startsWith('checkpoints/')).map((f) => f.path);
      const texts = Object.fromEntries(
        await Promise.all(logs.map(async (f) => [f, await (await fetchOk(demoUrl(`${arm}/${f}`))).text()] as const)),
      );
      const { config, run } = readRecordedRun(`${DEMO_FOLDER}/${arm}`, texts);
      return { arm, entry, config, run };
    })();
    p.catch(() => recordings.delete(arm));
    recordings.set(arm, p);
  }
  return p;
}

/** A recorded checkpoint's files (model.json, weights.bin, state.json, manifest.json) by name. */
export async function demoCheckpointFiles(arm: DemoArm, name: string): Promise<Map<string, Uint8Array>> {
  const entry = (await demoManifest()).arms.find((a) => a.preset === arm);
  const prefix = `checkpoints/${name}/`;
  const paths = entry?.files.filter((f) => f.path.startsWith(prefix)).map((f) => f.path) ?? [];
  if (paths.length === 0) throw new Error(`${DEMO_FOLDER}/${arm}: no recorded checkpoint ${name}`);
  const files = new Map<string, Uint8Array>();
  await Promise.all(
    paths.map(async (p) =>
      files.set(p.slice(prefix.length), new Uint8Array(await (await fetchOk(demoUrl(`${arm}/${p}`))).arrayBuffer())),
    ),
  );
  return files;
}
