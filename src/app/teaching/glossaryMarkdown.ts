// docs/GLOSSARY.md, generated from explanations.ts (the one source of the texts): the README links to it instead of
// copying the texts. test/app/teachingExplanations.test.ts fails when the file is out of date and rewrites it with
// UPDATE_GLOSSARY=1.
import { EXPLANATION_IDS, EXPLANATIONS, type ExplanationId } from './explanations';

export const GLOSSARY_PATH = 'docs/GLOSSARY.md';

function entry(id: ExplanationId): string {
  const e = EXPLANATIONS[id];
  const lines = [`### ${e.title}`, '', `<a id="${id}"></a>${e.what}`, ''];
  if ('formula' in e && e.formula) lines.push('$$', e.formula, '$$', '');
  if ('sign' in e && e.sign) lines.push(`**Sign / units.** ${e.sign}`, '');
  lines.push(`**Look for.** ${e.lookFor}`, '', `Method: [METHODS.md § ${e.anchor}](METHODS.md#${e.anchor})`, '');
  return lines.join('\n');
}

export function glossaryMarkdown(): string {
  return [
    '# Glossary of the charts and controls',
    '',
    '<!-- Generated from src/app/teaching/explanations.ts by glossaryMarkdown.ts; do not edit by hand.',
    '     Regenerate: UPDATE_GLOSSARY=1 npx vitest run test/app/teachingExplanations.test.ts -->',
    '',
    'The same texts the app shows behind each "?" (explain) button in the Train and Gate replay views.',
    '',
    ...EXPLANATION_IDS.map(entry),
  ].join('\n');
}
