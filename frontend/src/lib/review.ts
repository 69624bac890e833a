// In-editor diff review for CodeMirror 6: the current text stays in the
// editor (read-only while reviewing); each hunk's removed lines are tinted
// and struck through, and a widget under them shows the proposed lines with
// Accept / Reject buttons. A replace is shown side by side when the editor
// is wide enough.
import { StateEffect, StateField, type Extension, type Range } from '@codemirror/state'
import { Decoration, EditorView, WidgetType, type DecorationSet } from '@codemirror/view'
import type { Hunk } from './types'

export type Decision = 'accept' | 'reject'

export interface ReviewState {
  hunks: Hunk[]
  decisions: Record<number, Decision>
  wide: boolean // side by side for replacements
  onDecide: (index: number, d: Decision) => void
}

/** Changed line numbers (0-based, in the hunk's own numbering). */
export function changed(spans: [number, number][] | null): number[] {
  const out: number[] = []
  for (const [a, b] of spans ?? []) for (let i = a; i < b; i++) out.push(i)
  return out
}

class HunkWidget extends WidgetType {
  constructor(readonly hunk: Hunk, readonly decision: Decision | undefined, readonly wide: boolean, readonly onDecide: ReviewState['onDecide']) {
    super()
  }
  eq(o: HunkWidget) {
    return o.hunk.index === this.hunk.index && o.decision === this.decision && o.wide === this.wide
  }
  toDOM() {
    const h = this.hunk
    const box = document.createElement('div')
    box.className = 'cm-hunk' + (this.decision ? ' cm-hunk-' + this.decision : '')
    box.dataset.testid = 'hunk'
    box.dataset.hunk = String(h.index)
    const added = changed(h.new_spans).map((i) => h.new_lines[i])
    const removed = changed(h.old_spans).map((i) => h.old_lines[i])
    const body = document.createElement('div')
    body.className = this.wide && h.kind === 'replace' ? 'cm-hunk-side' : 'cm-hunk-inline'
    if (this.wide && h.kind === 'replace') {
      const col = (lines: string[], cls: string) => {
        const c = document.createElement('pre')
        c.className = cls
        c.textContent = lines.join('\n')
        return c
      }
      body.append(col(removed, 'cm-old'), col(added, 'cm-new'))
    } else if (added.length) {
      const pre = document.createElement('pre')
      pre.className = 'cm-new'
      pre.textContent = added.join('\n')
      body.append(pre)
    }
    box.append(body)
    const bar = document.createElement('div')
    bar.className = 'cm-hunk-bar'
    if (this.decision) {
      bar.textContent = this.decision === 'accept' ? 'Accepted' : 'Rejected'
    } else {
      for (const [label, d] of [['Accept', 'accept'], ['Reject', 'reject']] as const) {
        const b = document.createElement('button')
        b.textContent = label
        b.onclick = () => this.onDecide(h.index, d)
        bar.append(b)
      }
    }
    box.append(bar)
    return box
  }
  ignoreEvent() {
    return false
  }
}

export const setReview = StateEffect.define<ReviewState | null>()

function build(doc: { lines: number; line(n: number): { from: number; to: number } }, r: ReviewState | null): DecorationSet {
  if (!r) return Decoration.none
  const wide = r.wide
  const ranges: Range<Decoration>[] = []
  for (const h of r.hunks) {
    for (const i of changed(h.old_spans)) {
      const n = h.old_start + i + 1
      if (n <= doc.lines) ranges.push(Decoration.line({ class: 'cm-del' }).range(doc.line(n).from))
    }
    const lastOld = changed(h.old_spans).pop()
    const anchorLine = Math.min(doc.lines, Math.max(1, lastOld !== undefined ? h.old_start + lastOld + 1 : h.old_start + Math.max(0, changed(h.new_spans)[0] ?? 0)))
    const at = doc.line(anchorLine).to
    ranges.push(Decoration.widget({ widget: new HunkWidget(h, r.decisions[h.index], wide, r.onDecide), block: true, side: 1 }).range(at))
  }
  return Decoration.set(ranges, true)
}

export function reviewField(): Extension {
  const field = StateField.define<{ r: ReviewState | null; deco: DecorationSet }>({
    create: () => ({ r: null, deco: Decoration.none }),
    update(v, tr) {
      for (const e of tr.effects) if (e.is(setReview)) return { r: e.value, deco: build(tr.state.doc, e.value) }
      return { r: v.r, deco: v.deco.map(tr.changes) }
    },
    provide: (f) => EditorView.decorations.from(f, (v) => v.deco),
  })
  return [
    field,
    EditorView.baseTheme({
      '.cm-del': { backgroundColor: 'rgba(220,60,60,.18)', textDecoration: 'line-through' },
      '.cm-hunk': { border: '1px solid #3a5a3a', borderRadius: '6px', margin: '2px 0', padding: '4px' },
      '.cm-hunk-accept': { opacity: '.6' },
      '.cm-hunk-reject': { opacity: '.4' },
      '.cm-new': { backgroundColor: 'rgba(60,200,90,.16)', margin: '0', whiteSpace: 'pre-wrap' },
      '.cm-old': { backgroundColor: 'rgba(220,60,60,.16)', margin: '0', whiteSpace: 'pre-wrap' },
      '.cm-hunk-side': { display: 'grid', gridTemplateColumns: '1fr 1fr', gap: '6px' },
      '.cm-hunk-bar': { display: 'flex', gap: '6px', marginTop: '4px' },
    }),
  ]
}

/** A hunk as unified-diff lines: context ' ', removed '-', added '+'. */
export function unified(h: Hunk): { kind: ' ' | '-' | '+'; text: string }[] {
  const del = new Set(changed(h.old_spans))
  const add = new Set(changed(h.new_spans))
  const out: { kind: ' ' | '-' | '+'; text: string }[] = []
  let i = 0
  let j = 0
  while (i < h.old_lines.length || j < h.new_lines.length) {
    if (i < h.old_lines.length && del.has(i)) out.push({ kind: '-', text: h.old_lines[i++] })
    else if (j < h.new_lines.length && add.has(j)) out.push({ kind: '+', text: h.new_lines[j++] })
    else {
      if (i < h.old_lines.length) out.push({ kind: ' ', text: h.old_lines[i] })
      i++
      j++
    }
  }
  return out.map((l) => ({ ...l, text: l.text.replace(/\n$/, '') }))
}
