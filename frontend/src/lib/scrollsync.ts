// Scroll sync between the draft's source and its preview, both ways. The
// preview's top-level blocks carry data-line (the 1-based source line they
// start at, markdown.ts); a position between two anchors is interpolated,
// so a long paragraph scrolls smoothly instead of a block at a time.

/** A preview block: the source line it starts at and its offset (px) from
 * the top of the preview's content. */
export interface Anchor {
  line: number
  top: number
}

/** The anchors bracketing the whole document: line 1 at the top, the line
 * after the last at the bottom, so the ends interpolate too. Anchors out of
 * order (a block nested deeper, a float) are dropped. */
export function withEnds(anchors: Anchor[], lastLine: number, height: number): Anchor[] {
  const out: Anchor[] = [{ line: 1, top: 0 }]
  for (const a of anchors) {
    const prev = out[out.length - 1]
    if (a.line > prev.line && a.top >= prev.top) out.push(a)
    else if (a.line === prev.line) prev.top = Math.min(prev.top, a.top)
  }
  const end = { line: lastLine + 1, top: height }
  if (end.line > out[out.length - 1].line && end.top >= out[out.length - 1].top) out.push(end)
  return out
}

function interpolate(x: number, xs: number[], ys: number[]): number {
  if (xs.length === 0) return 0
  if (x <= xs[0]) return ys[0]
  for (let i = 1; i < xs.length; i++) {
    if (x <= xs[i]) {
      const span = xs[i] - xs[i - 1]
      return span <= 0 ? ys[i] : ys[i - 1] + ((x - xs[i - 1]) / span) * (ys[i] - ys[i - 1])
    }
  }
  return ys[ys.length - 1]
}

/** Where the preview should be for a (fractional) source line at the top. */
export function topForLine(line: number, anchors: Anchor[]): number {
  return interpolate(line, anchors.map((a) => a.line), anchors.map((a) => a.top))
}

/** Which (fractional) source line a preview scroll position shows. */
export function lineForTop(top: number, anchors: Anchor[]): number {
  return interpolate(top, anchors.map((a) => a.top), anchors.map((a) => a.line))
}

/** The anchors of a rendered preview, measured against its scroll origin. */
export function measure(doc: Document): Anchor[] {
  const scroller = doc.scrollingElement ?? doc.documentElement
  const origin = scroller.getBoundingClientRect().top - scroller.scrollTop
  const out: Anchor[] = []
  doc.querySelectorAll<HTMLElement>('[data-line]').forEach((el) => {
    const line = Number(el.dataset.line)
    if (Number.isFinite(line) && line > 0) out.push({ line, top: el.getBoundingClientRect().top - origin })
  })
  return out
}
