// Import CLI run folders (or a sweep folder of them) into the runs table: choose a folder, or the files themselves
// (config.json, metrics.jsonl, summary.json, …). Problems name the file and line.
import { runRepository, runsStore } from './storedRuns';
import { importRunFolders, type DroppedFile } from './runFolderFiles';

const WANTED = /(^|\/)(config\.json|summary\.json|comparison\.json|(metrics|sft|teacher|events)\.jsonl)$/;

async function importFiles(list: FileList | readonly File[]): Promise<void> {
  const files: DroppedFile[] = [];
  for (const f of Array.from(list)) {
    const path = (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name;
    if (WANTED.test(path)) files.push({ path, text: await f.text() });
  }
  try {
    const runs = importRunFolders(files);
    const repo = await runRepository();
    for (const r of runs) {
      await repo.putRun(r.record);
      await repo.append(r.metrics, r.events);
    }
    await runsStore.getState().refresh();
  } catch (e) {
    runsStore.getState().setError(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  }
}

export function RunImport() {
  return (
    <span className="run-import">
      <label className="button-like">
        import run folder…
        <input
          type="file"
          data-testid="import-folder"
          hidden
          multiple
          // a folder picker (Chromium, Firefox, Safari): keeps the relative paths a sweep folder needs
          {...({ webkitdirectory: '' } as Record<string, string>)}
          onChange={(e) => {
            if (e.currentTarget.files) void importFiles(e.currentTarget.files);
            e.currentTarget.value = '';
          }}
        />
      </label>
      <label className="button-like">
        import files…
        <input
          type="file"
          data-testid="import-files"
          hidden
          multiple
          accept=".json,.jsonl"
          onChange={(e) => {
            if (e.currentTarget.files) void importFiles(e.currentTarget.files);
            e.currentTarget.value = '';
          }}
        />
      </label>
    </span>
  );
}
