// Choose or drop one or more training logs (verl JSONL, TRL trainer_state.json, CSV exports, the lab's
// metrics.jsonl). Files are only named here: the replay worker streams them (File.stream()); nothing is uploaded.
import { useRef, useState, type DragEvent } from 'react';

/** A chosen log: its name, its size in bytes and its bytes (the File itself, or a Blob of a run's own log). */
export interface LoadedLog {
  readonly name: string;
  readonly bytes: number;
  readonly blob: Blob;
}

const loaded = (files: FileList | readonly File[]): LoadedLog[] =>
  Array.from(files).map((f) => ({ name: f.name, bytes: f.size, blob: f }));

export const size = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

export function LogFilePicker({ logs, onLoad }: { logs: readonly LoadedLog[]; onLoad: (logs: LoadedLog[]) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);

  const load = (files: FileList | null) => {
    if (!files || files.length === 0) return;
    onLoad(loaded(files));
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
    </div>
  );
}
