// The Train form's state, kept outside the view (switching to Overview and back mid-run keeps it) and mirrored in
// the URL hash (`#train?preset=…&seed=…`, trainLink.ts): a link fills the form, editing the form rewrites the link
// in place (history.replaceState, no new history entry).
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import { DEFAULT_FORM, formatTrainLink, parseTrainLink, splitHash, type TrainForm } from './trainLink';

export interface TrainFormState extends TrainForm {
  /** what was wrong with the link the page was opened with (shown until the form is edited) */
  linkErrors: string[];
  set(patch: Partial<TrainForm>): void;
  /** fill the form from a `#train?…` hash; `presets` checks the preset name once the catalog is in */
  applyLink(hash: string, presets: readonly string[] | null): void;
}

function writeLink(form: TrainForm): void {
  if (typeof window === 'undefined') return;
  if (splitHash(window.location.hash).view !== 'train') return;
  const link = formatTrainLink(form);
  if (window.location.hash !== link) window.history.replaceState(null, '', link);
}

export const trainForm = createStore<TrainFormState>()((set, get) => ({
  ...DEFAULT_FORM,
  linkErrors: [],
  set(patch) {
    set({ ...patch, linkErrors: [] });
    writeLink(get());
  },
  applyLink(hash, presets) {
    const { view, query } = splitHash(hash);
    if (view !== 'train' || query === '') return;
    const { form, errors } = parseTrainLink(query, presets);
    set({ ...form, linkErrors: errors });
  },
}));

if (typeof window !== 'undefined') trainForm.getState().applyLink(window.location.hash, null);

export const useTrainForm = <T>(selector: (s: TrainFormState) => T): T => useStore(trainForm, selector);
