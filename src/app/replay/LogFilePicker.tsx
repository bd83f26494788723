// Choose or drop one or more training logs (verl JSONL, TRL trainer_state.json, CSV exports, the lab's
// metrics.jsonl). Files are read in the page; nothing is uploaded anywhere.
import { useRef, useState, type DragEvent } from 'react';
import type { LogSource } from '../../core/replay/logRecords';

export interface LoadedLog extends LogSource {
  readonly bytes: number;
}

async function readAll(files: FileList | readonly File[]): Promise<LoadedLog[]> {
  return Promise.all(Array.from(files).map(async (f) => ({ name: f.name, text: await f.text(), bytes: f.size })));
}

const size = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

export function LogFilePicker({ logs, onLoad }: { logs: readonly LoadedLog[]; onLoad: (logs: LoadedLog[]) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [readError, setReadError] = useState<string | null>(null);

  const load = (files: FileList | null) => {
    if (!files || files.length === 0) return;
    setReadError(null);
    readAll(files).then(onLoad, (e: unknown) => setReadError(`could not read the file: ${String(e)}`));
  };
  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    e.preventDefault();
    setOver(false);
    load(e.dataTransfer.files);
  };

  return (
    <div
      className={`dropzone${over ? ' over' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      <p>
        Drop log files here, or{' '}
        <button type="button" className="link" onClick={() => input.current?.click()}>
          choose files
        </button>
        . Several files are joined on the step (e.g. two TensorBoard CSV exports).
      </p>
      <input
        ref={input}
        type="file"
        multiple
        // the native control's "No file chosen" would contradict the list below: the button above opens it
        className="file-input-hidden"
        aria-label="log files"
        accept=".jsonl,.json,.csv,.txt,.log"
        onChange={(e) => {
          load(e.currentTarget.files);
          e.currentTarget.value = '';
        }}
      />
      {logs.length > 0 ? (
        <ul className="files" aria-label="loaded files">
          {logs.map((l) => (
            <li key={l.name}>
              <code>{l.name}</code> <span className="muted">{size(l.bytes)}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {readError ? (
        <p role="alert" className="error">
          {readError}
        </p>
      ) : null}
    </div>
  );
}
