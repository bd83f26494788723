// The worker's loader of a preset's shipped teacher, fed from public/ on disk through a stand-in fetch.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEnvFor } from '../../src/core/experiment/envFactory';
import { loadPreset } from '../../src/core/experiment/preset';
import { loadTeacher } from '../../src/app/worker/teacherLoader';
import { ROOT } from './appServer';

const PUBLIC = join(ROOT, 'public');
const ORIGIN = new URL('http://lab.test/');
const preset = (name: string) =>
  loadPreset(name, (n) => JSON.parse(readFileSync(join(PUBLIC, 'presets', `${n}.json`), 'utf8')) as unknown);

/** Serves public/ from disk; records the paths asked for; `edit` may change a file's bytes on the way. */
function diskFetch(asked: string[], edit: (path: string, bytes: Uint8Array) => Uint8Array = (_, b) => b): typeof fetch {
  return (async (input: URL | RequestInfo) => {
    const url = new URL(String(input));
    asked.push(url.pathname);
    try {
      const bytes = new Uint8Array(readFileSync(join(PUBLIC, decodeURIComponent(url.pathname))));
      return new Response(edit(url.pathname, bytes) as Uint8Array<ArrayBuffer>);
    } catch {
      return new Response('not found', { status: 404 });
    }
  }) as typeof fetch;
}

describe('the shipped teacher in the browser', () => {
  const cfg = preset('retire-shell').config;

  it.each(['retire-shell', 'retire-house', 'retire-shop'])(
    '%s: fetches model.json, weights.bin and state.json from the app itself and returns the teacher weights',
    async (name) => {
      const cfg = preset(name).config;
      expect(cfg.teacher.checkpoint).toBe(`teachers/${cfg.env.name}`);
      const asked: string[] = [];
      const weights = await loadTeacher(cfg, createEnvFor(cfg), diskFetch(asked), ORIGIN);
      const dir = `/${cfg.teacher.checkpoint}`;
      expect(asked).toEqual([`${dir}/manifest.json`, `${dir}/model.json`, `${dir}/weights.bin`, `${dir}/state.json`]);
      expect(weights?.length).toBeGreaterThan(0);
      for (const w of weights ?? []) expect(w.data.length).toBe(w.shape.reduce((a, b) => a * b, 1));
    },
  );

  it('needs nothing when the preset trains its own teacher', async () => {
    const own = { ...cfg, teacher: { ...cfg.teacher, checkpoint: '' } };
    const asked: string[] = [];
    expect(await loadTeacher(own, createEnvFor(own), diskFetch(asked), ORIGIN)).toBeNull();
    expect(asked).toEqual([]);
  });

  it('refuses a teacher trained for another model, naming the fields that differ', async () => {
    const wider = { ...cfg, model: { ...cfg.model, width: cfg.model.width * 2 } };
    await expect(loadTeacher(wider, createEnvFor(wider), diskFetch([]), ORIGIN)).rejects.toThrow(
      new RegExp(`was trained for another model/env: width ${cfg.model.width} ≠ ${cfg.model.width * 2}`),
    );
  });

  it('fetches nothing for a checkpoint outside the app, even one that bypassed the config schema', async () => {
    for (const checkpoint of ['http://OTHER-HOST/teachers/shell', '//OTHER-HOST/t', '/teachers/shell', '../x']) {
      const far = { ...cfg, teacher: { ...cfg.teacher, checkpoint } };
      const asked: string[] = [];
      await expect(loadTeacher(far, createEnvFor(far), diskFetch(asked), ORIGIN), checkpoint).rejects.toThrow(
        /^teacher\.checkpoint: expected a relative path inside the app/,
      );
      expect(asked).toEqual([]);
    }
  });

  it('names the missing file and the server’s answer', async () => {
    const missing = { ...cfg, teacher: { ...cfg.teacher, checkpoint: 'teachers/nope' } };
    await expect(loadTeacher(missing, createEnvFor(missing), diskFetch([]), ORIGIN)).rejects.toThrow(
      'teacher.checkpoint: /teachers/nope/manifest.json answered 404',
    );
  });

  it('refuses weights whose bytes differ from the manifest, as the CLI does', async () => {
    const flipOne = (path: string, bytes: Uint8Array) => {
      if (path.endsWith('/weights.bin')) bytes[100] = (bytes[100] ?? 0) ^ 1;
      return bytes;
    };
    await expect(loadTeacher(cfg, createEnvFor(cfg), diskFetch([], flipOne), ORIGIN)).rejects.toThrow(
      'teacher.checkpoint teachers/shell/weights.bin: SHA-256 does not match manifest.json',
    );
  });

  it.each(['http://127.0.0.2:9/teachers/shell', 'javascript:alert(1)', '//other.test/teachers/shell'])(
    'refuses the off-origin checkpoint %s before any fetch',
    async (checkpoint) => {
      const asked: string[] = [];
      const bad = { ...cfg, teacher: { ...cfg.teacher, checkpoint } };
      await expect(loadTeacher(bad, createEnvFor(bad), diskFetch(asked), ORIGIN)).rejects.toThrow(
        /^teacher\.checkpoint: expected a relative path inside the app/,
      );
      expect(asked).toEqual([]);
    },
  );
});

describe('the shipped teacher of a lab published at a sub-path', () => {
  it('is fetched under the app root the page was served from, not the host root', async () => {
    const cfg = preset('retire-shell').config;
    const asked: string[] = [];
    // a host serving public/ under /retirelab/ only
    const fetcher = (async (input: URL | RequestInfo) => {
      const { pathname } = new URL(String(input));
      asked.push(pathname);
      if (!pathname.startsWith('/retirelab/')) return new Response('not found', { status: 404 });
      return new Response(readFileSync(join(PUBLIC, pathname.slice('/retirelab/'.length))));
    }) as typeof fetch;
    const weights = await loadTeacher(cfg, createEnvFor(cfg), fetcher, new URL('https://school.test/retirelab/'));
    expect(asked).toEqual([
      '/retirelab/teachers/shell/manifest.json',
      '/retirelab/teachers/shell/model.json',
      '/retirelab/teachers/shell/weights.bin',
      '/retirelab/teachers/shell/state.json',
    ]);
    expect(weights?.length).toBeGreaterThan(0);
  });
});
