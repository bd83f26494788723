// CSV logs (parsed with papaparse): a header row, a step column and one column per metric. Understood layouts:
//   - plain:        step,gap,val            (any metric names; empty cells mean "not logged at this step")
//   - TensorBoard:  Wall time,Step,Value    (one metric per file; the metric is named after the file, so
//                   run-ppo-tag-val_success_rate.csv holds "val_success_rate" — keys match ignoring / vs _)
//   - W&B:          Step,"run - val/success_rate","run - val/success_rate__MIN",…   (__MIN/__MAX dropped)
// Several files are joined on the step by the caller.
import Papa from 'papaparse';
import { checkStep, checkStepOrder, type LogRecord, ReplayInputError } from './logRecords';

const STEP_COLUMN = /^(step|_step|global_step)$/i;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A cell as a number where it is one (nan/inf spelled as Python, pandas or TensorBoard write them). */
export function parseCell(cell: string): unknown {
  const text = cell.trim();
  if (text === '') return undefined;
  if (NUMBER.test(text)) return Number(text);
  const lower = text.toLowerCase();
  if (lower === 'nan') return Number.NaN;
  if (lower === 'inf' || lower === '+inf' || lower === 'infinity') return Number.POSITIVE_INFINITY;
  if (lower === '-inf' || lower === '-infinity') return Number.NEGATIVE_INFINITY;
  return text;
}

/** The metric a TensorBoard single-scalar export holds, from its file name. */
export function tensorboardTag(file: string): string {
  const base = (file.split(/[\\/]/).pop() ?? file).replace(/\.csv$/i, '');
  const tag = /(?:^|[-_])tag-(.+)$/.exec(base);
  return tag?.[1] ?? base;
}

/** The metric key of a column header, or null for columns that hold no metric. */
function metricKey(file: string, header: string, singleMetric: boolean): string | null {
  if (STEP_COLUMN.test(header) || /^wall[ _]?time$/i.test(header)) return null;
  if (singleMetric && /^value$/i.test(header)) return tensorboardTag(file);
  if (/__(MIN|MAX)$/.test(header)) return null;
  const wandb = /^.+? - (.+)$/.exec(header);
  return wandb?.[1] ?? header;
}

export function parseCsv(file: string, text: string): LogRecord[] {
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: false });
  const quoteError = parsed.errors.find((e) => e.type === 'Quotes');
  if (quoteError !== undefined) {
    throw new ReplayInputError(file, (quoteError.row ?? 0) + 1, `CSV: ${quoteError.message}`);
  }
  const rows = parsed.data;
  const isBlank = (row: string[]) => row.every((cell) => cell.trim() === '');
  const headerIndex = rows.findIndex((row) => !isBlank(row));
  const header = rows[headerIndex];
  if (header === undefined) throw new ReplayInputError(file, 1, 'empty file');
  const fields = header.map((h) => h.trim());
  const stepColumn = fields.findIndex((f) => STEP_COLUMN.test(f));
  if (stepColumn < 0) {
    throw new ReplayInputError(
      file,
      headerIndex + 1,
      `no step column (expected one of step, Step, _step, global_step; header is ${fields.join(',')})`,
    );
  }
  const singleMetric = fields.some((f) => /^value$/i.test(f));
  const keys = fields.map((f) => metricKey(file, f, singleMetric));
  keys.forEach((key, column) => {
    const first = keys.indexOf(key);
    if (key !== null && first !== column) {
      throw new ReplayInputError(
        file,
        headerIndex + 1,
        `columns "${fields[first]}" and "${fields[column]}" both hold "${key}" (export one run per file)`,
      );
    }
  });

  const records: LogRecord[] = [];
  for (let i = headerIndex + 1; i < rows.length; i++) {
    const row = rows[i] as string[];
    const line = i + 1;
    if (isBlank(row)) continue;
    if (row.length !== fields.length) {
      throw new ReplayInputError(file, line, `expected ${fields.length} fields as in the header, got ${row.length}`);
    }
    const values = new Map<string, unknown>();
    keys.forEach((key, column) => {
      const value = key === null ? undefined : parseCell(row[column] ?? '');
      if (key !== null && value !== undefined) values.set(key, value);
    });
    records.push({ file, line, step: checkStep(file, line, row[stepColumn]), values });
  }
  if (records.length === 0) throw new ReplayInputError(file, headerIndex + 1, 'no data rows after the header');
  checkStepOrder(records);
  return records;
}
