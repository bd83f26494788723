import { describe, expect, it } from 'vitest';
import { blobTextChunks } from '../../src/app/files/blobText';

async function collect(blob: Blob): Promise<{ text: string; chunks: number; reports: [number, number][] }> {
  const reports: [number, number][] = [];
  let text = '';
  let chunks = 0;
  for await (const chunk of blobTextChunks(blob, (read, total) => reports.push([read, total]))) {
    text += chunk;
    chunks += 1;
  }
  return { text, chunks, reports };
}

describe('a blob read as text in chunks', () => {
  it('keeps multi-byte characters whole across chunk boundaries and reports bytes read up to the size', async () => {
    // 3-byte characters in parts of 1,001 bytes (Node's Blob.stream() yields one chunk per part): most chunk
    // boundaries fall inside a character
    const text = '成功率,'.repeat(3_000);
    const bytes = new TextEncoder().encode(text);
    const parts: Uint8Array<ArrayBuffer>[] = [];
    for (let at = 0; at < bytes.length; at += 1001) parts.push(bytes.slice(at, at + 1001));
    const blob = new Blob(parts);
    const out = await collect(blob);
    expect(out.text).toBe(text);
    expect(out.chunks).toBeGreaterThan(1);
    expect(out.reports.at(-1)).toEqual([blob.size, blob.size]);
    expect(out.reports.map(([read]) => read)).toEqual([...out.reports.map(([read]) => read)].sort((a, b) => a - b));
  });

  it('turns invalid UTF-8 into U+FFFD, as the CLI’s stream decoding does', async () => {
    const out = await collect(new Blob([new Uint8Array([0x61, 0xff, 0x62])]));
    expect(out.text).toBe('a\ufffdb');
  });

  it('yields nothing for an empty blob', async () => {
    expect((await collect(new Blob([]))).text).toBe('');
  });
});
