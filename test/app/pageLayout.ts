// In-page layout checks for the real-browser tests: what a projector would hide. Each function is passed to
// page.evaluate, so it must be self-contained (no imports, no closures over test code).

export interface LayoutReport {
  /** document scroll width and the viewport's width (px): a wider document scrolls sideways */
  scrollWidth: number;
  viewportWidth: number;
  /** the widest elements that stick out of the viewport: tag.class and right edge (px) */
  sticking: string[];
  /** text or focusable content under a fixed element: "what ← fixed element" */
  covered: string[];
  /** empty fields whose placeholder is wider than the field shows: "placeholder (text px > room px)" */
  clippedPlaceholders: string[];
}

/**
 * Measures the page as it is on screen: horizontal overflow, and every fixed element's overlap with text and
 * focusable content outside it. A content box is first clipped by its scrolling ancestors and the viewport, so text
 * scrolled out of sight inside a table's own scroll box does not count.
 */
export function measureLayout(): LayoutReport {
  const vw = document.documentElement.clientWidth;
  const vh = document.documentElement.clientHeight;
  type Box = { l: number; t: number; r: number; b: number };
  const box = (r: DOMRect): Box => ({ l: r.left, t: r.top, r: r.right, b: r.bottom });
  const meet = (a: Box, c: Box): Box => ({
    l: Math.max(a.l, c.l),
    t: Math.max(a.t, c.t),
    r: Math.min(a.r, c.r),
    b: Math.min(a.b, c.b),
  });
  const area = (a: Box) => Math.max(0, a.r - a.l) * Math.max(0, a.b - a.t);
  const describe = (e: Element) =>
    `${e.tagName.toLowerCase()}${e.className && typeof e.className === 'string' ? `.${e.className.trim().split(/\s+/).join('.')}` : ''}`;

  const fixed = [...document.querySelectorAll('body *')]
    .filter((e) => {
      const cs = getComputedStyle(e);
      return cs.position === 'fixed' && cs.display !== 'none' && cs.visibility !== 'hidden';
    })
    .map((e) => ({ e, b: box(e.getBoundingClientRect()) }))
    .filter((f) => area(f.b) > 0);

  /** the part of a box actually visible: inside every clipping ancestor and the viewport */
  const visible = (el: Element, b: Box): Box => {
    let v = meet(b, { l: 0, t: 0, r: vw, b: vh });
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') v = meet(v, box(a.getBoundingClientRect()));
    }
    return v;
  };
  const hidden = (el: Element) => {
    for (let a: Element | null = el; a; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.visibility === 'hidden' || cs.clipPath.startsWith('inset') || Number(cs.opacity) === 0) return true;
    }
    return false;
  };
  const covered: string[] = [];
  const check = (el: Element, b: Box, what: string) => {
    for (const f of fixed) {
      if (f.e.contains(el)) continue;
      const v = visible(el, b);
      // more than a hairline: anti-aliased edges and outlines touching do not count
      const o = meet(v, f.b);
      if (o.r - o.l > 1 && o.b - o.t > 1 && !hidden(el)) covered.push(`${what} ← ${describe(f.e)}`);
    }
  };
  if (fixed.length > 0) {
    const focusable = 'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';
    for (const el of document.querySelectorAll(focusable)) {
      for (const r of el.getClientRects())
        check(el, box(r), `${describe(el)} "${(el.textContent ?? '').trim().slice(0, 30)}"`);
    }
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = (n.textContent ?? '').trim();
      if (!text || !n.parentElement) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) check(n.parentElement, box(r), `text "${text.slice(0, 30)}"`);
    }
  }
  const sticking = [...document.querySelectorAll('body *')]
    .filter(
      (e) =>
        e.getBoundingClientRect().right > vw + 1 && (e.parentElement?.getBoundingClientRect().right ?? 0) <= vw + 1,
    )
    .slice(0, 6)
    .map((e) => `${describe(e)} → ${Math.round(e.getBoundingClientRect().right)}`);
  // a placeholder's widest line against the field's inner width, in the field's own font
  const canvas = document.createElement('canvas').getContext('2d');
  const clippedPlaceholders: string[] = [];
  for (const el of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
    'input[placeholder], textarea[placeholder]',
  )) {
    if (!canvas || el.value !== '' || el.getClientRects().length === 0) continue;
    const cs = getComputedStyle(el);
    canvas.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const text = Math.max(...el.placeholder.split('\n').map((line) => canvas.measureText(line).width));
    const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    if (text > room + 0.5)
      clippedPlaceholders.push(`${el.placeholder} (${Math.round(text)} px > ${Math.round(room)} px)`);
  }
  return {
    clippedPlaceholders,
    scrollWidth: document.documentElement.scrollWidth,
    viewportWidth: vw,
    sticking,
    covered: [...new Set(covered)].slice(0, 12),
  };
}
