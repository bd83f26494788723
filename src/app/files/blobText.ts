// A Blob (a dropped File) as UTF-8 text in chunks, read with Blob.stream(): the file is never held whole, and the
// bytes read so far are reported as they arrive (for a progress bar). Decoding keeps a character split across two
// chunks whole; invalid bytes become U+FFFD, as the CLI's stream decoding does.

/** Bytes read of one file, and its size. */
export type OnBytes = (bytesRead: number, totalBytes: number) => void;

/** The text chunks of a blob, in order; `onBytes` after each chunk. */
export async function* blobTextChunks(blob: Blob, onBytes: OnBytes = () => {}): AsyncGenerator<string> {
  const reader = blob.stream().getReader();
  const decoder = new TextDecoder('utf-8');
  let read = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      read += value.byteLength;
      const text = decoder.decode(value, { stream: true });
      onBytes(read, blob.size);
      if (text !== '') yield text;
    }
    const rest = decoder.decode();
    if (rest !== '') yield rest;
  } finally {
    reader.releaseLock();
  }
}
