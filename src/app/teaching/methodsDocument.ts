// docs/METHODS.md as blocks the Method view can draw, with no markdown library: the file uses only headings,
// paragraphs, bullet lists, indented formula blocks, `code`, **bold** and explicit anchors `<a id="…"></a>`.
export type Inline = { kind: 'text' | 'code' | 'strong'; text: string };

export type Block =
  | { kind: 'heading'; level: 1 | 2; text: string; anchor: string | null }
  | { kind: 'paragraph'; inline: Inline[]; anchor: string | null }
  | { kind: 'list'; items: Inline[][]; anchor: string | null }
  | { kind: 'formula'; text: string; anchor: string | null };

const ANCHOR = /^<a id="([a-z0-9-]+)"><\/a>\s*/;

export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) out.push({ kind: 'text', text: text.slice(last, m.index) });
    out.push(m[1] !== undefined ? { kind: 'code', text: m[1] } : { kind: 'strong', text: m[2] ?? '' });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ kind: 'text', text: text.slice(last) });
  return out;
}

export function parseMethods(markdown: string): Block[] {
  const blocks: Block[] = [];
  let anchor: string | null = null;
  let para: string[] = [];
  let list: string[] | null = null;
  let formula: string[] | null = null;
  const flush = () => {
    if (para.length > 0) blocks.push({ kind: 'paragraph', inline: parseInline(para.join(' ')), anchor });
    else if (list) blocks.push({ kind: 'list', items: list.map(parseInline), anchor });
    else if (formula) blocks.push({ kind: 'formula', text: formula.join('\n'), anchor });
    else return;
    para = [];
    list = null;
    formula = null;
    anchor = null;
  };
  for (const raw of markdown.split('\n')) {
    let line = raw;
    const a = ANCHOR.exec(line);
    if (a) {
      flush();
      anchor = a[1] ?? null;
      line = line.slice(a[0].length);
      if (line.trim() === '') continue;
    }
    if (line.startsWith('    ') && para.length === 0 && !list) {
      (formula ??= []).push(line.slice(4));
      continue;
    }
    if (line.trim() === '') {
      if (!formula) flush();
      continue;
    }
    if (formula) flush();
    const h = /^(#{1,2}) (.*)$/.exec(line);
    if (h) {
      flush();
      blocks.push({ kind: 'heading', level: (h[1] as string).length as 1 | 2, text: h[2] ?? '', anchor });
      anchor = null;
    } else if (line.startsWith('- ')) {
      if (para.length > 0) flush();
      (list ??= []).push(line.slice(2));
    } else if (list && line.startsWith('  ')) {
      list[list.length - 1] += ` ${line.trim()}`;
    } else {
      if (list) flush();
      para.push(line.trim());
    }
  }
  flush();
  return blocks;
}
