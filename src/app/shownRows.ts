// Long tables (a replay of a 200 MB log has thousands of evaluated windows) show a part at first — the first rows
// and those around the row that matters (the trigger) — and the rest on request: thousands of rows at once held the
// page for most of a second.

/** Rows a long table shows before "show all". */
export const SHOWN_ROWS = 300;

/** The rows to show, with their indices, in order: all of them when `all` or when there are few. */
export function shownRows<T>(
  rows: readonly T[],
  focus: number | null,
  all: boolean,
  limit: number = SHOWN_ROWS,
): { shown: { row: T; index: number }[]; hidden: number } {
  const every = () => rows.map((row, index) => ({ row, index }));
  if (all || rows.length <= limit) return { shown: every(), hidden: 0 };
  const head = Math.floor(limit / 2);
  const keep = (i: number) =>
    i < head || (focus !== null && focus >= 0 && Math.abs(i - focus) < Math.ceil((limit - head) / 2));
  const shown = every().filter(({ index }) => keep(index));
  return { shown, hidden: rows.length - shown.length };
}
