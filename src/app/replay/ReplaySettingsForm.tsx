// The gate settings of a replay, with the CLI's defaults (npm run replay -- --help). Numbers are typed as text so
// that 1e-8 and negative thresholds read as written; the core validates them and names the field at fault.
import type { FormEvent } from 'react';
import { Field } from '../Field';
import { Select } from '../Select';
import { REPLAY_SCHEDULES } from '../../core/replay/gateReplay';
import { LOG_FORMATS } from '../../core/replay/logRecords';
import { SETTING_LABELS, type FormatChoice, type ReplaySettings, type SettingName } from './replayModel';

interface Props {
  settings: ReplaySettings;
  onChange: (settings: ReplaySettings) => void;
  onSubmit: () => void;
  /** the setting a failed replay blamed, outlined in the form */
  invalid: SettingName | null;
  canRun: boolean;
}

const NUMBER_FIELDS: { name: SettingName; hint: string }[] = [
  { name: 'teacherPerformance', hint: 'teacher’s validation score, same split and metric (required)' },
  { name: 'windowSize', hint: 'training steps per window (default 5)' },
  { name: 'alignmentThreshold', hint: 'retire when ρ ≤ δ (default 0)' },
  { name: 'competenceThreshold', hint: 'retire when η ≥ γ (default 0.9)' },
  { name: 'denominatorEpsilon', hint: 'ρ needs |previous K̄| > ε (default 1e-8)' },
];

/** The log's keys, typed by name; empty means the format's default. */
const KEY_FIELDS: { name: 'gapKey' | 'valKey'; hint: string }[] = [
  { name: 'gapKey', hint: 'g = token-mean(log π_T − log π_old)' },
  { name: 'valKey', hint: 'the validation score S' },
];

const FORMAT_CHOICES: readonly FormatChoice[] = ['auto', ...LOG_FORMATS];

export function ReplaySettingsForm({ settings, onChange, onSubmit, invalid, canRun }: Props) {
  const set = <K extends SettingName>(name: K, value: ReplaySettings[K]) => onChange({ ...settings, [name]: value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit();
  };
  return (
    <form className="settings" onSubmit={submit} aria-label="replay settings">
      <div className="fields">
        {NUMBER_FIELDS.map(({ name, hint }) => (
          <Field key={name} label={SETTING_LABELS[name]} hint={hint} invalid={invalid === name}>
            {(id, hintId) => (
              <input
                id={id}
                type="text"
                inputMode="decimal"
                value={settings[name]}
                aria-invalid={invalid === name}
                aria-describedby={hintId}
                onChange={(e) => set(name, e.currentTarget.value)}
                placeholder={name === 'teacherPerformance' ? 'e.g. 0.8' : undefined}
              />
            )}
          </Field>
        ))}
        <Field label={SETTING_LABELS.schedule} hint="adaptive: ρ ≤ δ and η ≥ γ" invalid={invalid === 'schedule'}>
          {(id, hintId) => (
            <Select
              id={id}
              aria-describedby={hintId}
              value={settings.schedule}
              choices={REPLAY_SCHEDULES}
              onChange={(schedule) => set('schedule', schedule)}
            />
          )}
        </Field>
        <Field label={SETTING_LABELS.format} hint="jsonl, verl, csv or trl" invalid={false}>
          {(id, hintId) => (
            <Select
              id={id}
              aria-describedby={hintId}
              value={settings.format}
              choices={FORMAT_CHOICES}
              labels={{ auto: 'detect per file' }}
              onChange={(format) => set('format', format)}
            />
          )}
        </Field>
        {KEY_FIELDS.map(({ name, hint }) => (
          <Field key={name} label={SETTING_LABELS[name]} hint={hint} invalid={false}>
            {(id, hintId) => (
              <input
                id={id}
                aria-describedby={hintId}
                type="text"
                value={settings[name]}
                placeholder="default for the format"
                onChange={(e) => set(name, e.currentTarget.value)}
              />
            )}
          </Field>
        ))}
      </div>
      <button type="submit" className="primary" disabled={!canRun}>
        Run replay
      </button>
    </form>
  );
}
