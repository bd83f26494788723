// The line under a long table that shows only part of its rows (shownRows.ts): how many are left out, and a button
// that shows them all.
export function HiddenRows({ hidden, total, onShowAll }: { hidden: number; total: number; onShowAll: () => void }) {
  if (hidden === 0) return null;
  return (
    <p className="muted" data-testid="hidden-rows">
      {hidden} of {total} rows not shown (the first ones and those around the trigger are).{' '}
      <button type="button" onClick={onShowAll}>
        show all {total}
      </button>
    </p>
  );
}
