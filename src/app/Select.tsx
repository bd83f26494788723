// A <select> over a fixed list of string choices, typed by them: the change handler receives the choice (no cast at
// each use), and each option shows its label, or the choice itself when it has none. Every other attribute (id,
// aria-*, data-testid, disabled) passes through to the <select>.
import type { SelectHTMLAttributes } from 'react';

export interface SelectProps<T extends string> extends Omit<
  SelectHTMLAttributes<HTMLSelectElement>,
  'value' | 'onChange' | 'children'
> {
  value: T;
  choices: readonly T[];
  /** the text shown for a choice, where it differs from the choice */
  labels?: Partial<Record<T, string>>;
  onChange: (choice: T) => void;
}

export function Select<T extends string>({ value, choices, labels, onChange, ...rest }: SelectProps<T>) {
  return (
    // the options are exactly `choices`, so the selected value is one of them
    <select {...rest} value={value} onChange={(e) => onChange(e.currentTarget.value as T)}>
      {choices.map((c) => (
        <option key={c} value={c}>
          {labels?.[c] ?? c}
        </option>
      ))}
    </select>
  );
}
