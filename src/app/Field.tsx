// One labelled form control with an optional hint: the label names the control (htmlFor), the hint describes it
// (aria-describedby) without becoming part of its name.
import { useId, type ReactNode } from 'react';

export interface FieldProps {
  label: string;
  hint?: string;
  invalid?: boolean;
  wide?: boolean;
  /** renders the control with the id and the hint's id it must carry */
  children: (id: string, hintId: string | undefined) => ReactNode;
}

export function Field({ label, hint, invalid = false, wide = false, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className={['field', invalid ? 'invalid' : '', wide ? 'wide' : ''].filter(Boolean).join(' ')}>
      <label htmlFor={id}>{label}</label>
      {children(id, hintId)}
      {hint ? <small id={hintId}>{hint}</small> : null}
    </div>
  );
}
