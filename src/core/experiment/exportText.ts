// One rule for text the lab writes into files a person opens elsewhere: Markdown (comparison.md, report.md,
// protocol.md) and CSV (the compare view's comparison.csv). Text that came from a user — a config name, an axis value,
// a run error — must come out as text: no HTML, links or code spans in Markdown, no formula in a spreadsheet.

/**
 * Text as literal Markdown (one line, e.g. a table cell or a heading): `\` `|` `` ` `` `[` `]` are backslash-escaped,
 * `&` `<` `>` become entities (so `<img onerror=…>` is shown, never parsed as HTML), a newline is a space.
 */
export function markdownText(text: string): string {
  return text
    .replace(/[\\|`[\]]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r?\n|\r/g, ' ');
}

/**
 * The start of a CSV text cell a spreadsheet would run as a formula (OWASP's CSV-injection rule: = + - @ tab, CR).
 * Such a cell is written with a leading single quote and quoted (RFC 4180). The rule applies to text cells only: a
 * number is written as a number, so a negative value stays `-0.5`. Unlike papaparse's built-in pattern
 * (`/^[=+\-@\t\r].*$/`, whose `.` stops at a newline), this matches whatever follows, a line break included.
 */
export const CSV_FORMULA_START = /^[=+\-@\t\r]/;

/** Text as a Markdown code span (inside one nothing is parsed); text a code span cannot hold is escaped instead. */
export function markdownCode(text: string): string {
  return /[`\r\n]/.test(text) ? markdownText(text) : `\`${text}\``;
}
