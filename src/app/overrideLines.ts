// The `key=value` overrides a form's text area holds (the CLI's --set, one per line): each line trimmed, blank
// lines and `#` comment lines skipped. Validation is the core's (applyOverrides), which names the key at fault.
export const overrideLines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
