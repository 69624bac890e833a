// The one Markdown renderer of the window: chat answers (also while they
// stream), the source viewer and draft previews. Raw HTML in the text is
// escaped, never passed through (html: false), so an answer or a draft
// built from an untrusted document cannot inject markup; unsafe link
// schemes (javascript:, data:, file:) stay text. Images are shown as links,
// not loaded: an image URL in a model's answer could carry private text to
// a server. Maths is typeset by KaTeX (math.ts).
import MarkdownIt from 'markdown-it'
import type { MarkdownIt as MarkdownItInstance, StateInline } from 'markdown-it'
import { mathPlugin } from './math'
import type { Citation } from './types'

export interface RenderEnv {
  [key: string]: unknown
  /** The answer's kept citations: [source: X] markers become numbered
   * references to them; markers that name none are removed. */
  citations?: Citation[]
  /** Stamp top-level blocks with data-line (1-based source line). */
  lines?: boolean
}

/** A [source: X] or [source: X, p.N] marker, as the agent writes them. */
const MARKER = /^\[source:\s*([^\]\n]+?)\s*\]/
const PAGE = /,\s*p\.?\s*(\d+)$/

/** Which of citations a marker's label names (-1: none). */
export function citationIndex(label: string, citations: Citation[]): number {
  let page = 0
  const m = PAGE.exec(label)
  if (m) {
    page = Number(m[1])
    label = label.slice(0, m.index).trim()
  }
  const same = (c: Citation) => c.source === label || c.file_path === label
  const exact = citations.findIndex((c) => same(c) && (!page || c.page === page))
  return exact >= 0 ? exact : citations.findIndex(same)
}

function citeRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x5b /* [ */) return false
  const m = MARKER.exec(state.src.slice(state.pos))
  if (!m) return false
  if (!silent) {
    state.pending = state.pending.replace(/[ \t]+$/, '') // "see [source: x]." reads "see¹."
    const t = state.push('cite_ref', '', 0)
    t.content = m[1]
  }
  state.pos += m[0].length
  return true
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function build(): MarkdownItInstance {
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false })
  md.use(mathPlugin)
  md.inline.ruler.before('link', 'cite_ref', citeRule)
  md.renderer.rules.cite_ref = (tokens, i, _o, env) => {
    const cites: Citation[] = (env as RenderEnv | undefined)?.citations ?? []
    const n = citationIndex(tokens[i].content, cites)
    if (n < 0) return ''
    const c = cites[n]
    const name = escape((c.title || c.file_path || c.source) + (c.page ? `, page ${c.page}` : ''))
    return `<sup class="ref"><button type="button" data-cite="${n}" title="${name}" aria-label="Source ${n + 1}: ${name}">${n + 1}</button></sup>`
  }
  // Links show their address on hover and are opened outside the app by
  // the window's click handler (links.ts).
  const linkOpen = md.renderer.rules.link_open ?? ((t, i, o, _e, self) => self.renderToken(t, i, o))
  md.renderer.rules.link_open = (tokens, i, opts, env, self) => {
    const href = String(tokens[i].attrGet('href') ?? '')
    if (!tokens[i].attrGet('title')) tokens[i].attrSet('title', href)
    tokens[i].attrSet('rel', 'noreferrer')
    return linkOpen(tokens, i, opts, env, self)
  }
  md.renderer.rules.image = (tokens, i) => {
    const src = String(tokens[i].attrGet('src') ?? '')
    const alt = String(tokens[i].content || src)
    return `<a href="${escape(src)}" title="${escape(src)}" rel="noreferrer" class="image-link">[image: ${escape(alt)}]</a>`
  }
  const fence = md.renderer.rules.fence!
  md.renderer.rules.fence = (tokens, i, opts, env, self) => {
    const line = tokens[i].attrGet('data-line')
    const at = line ? ` data-line="${line}"` : ''
    tokens[i].attrs = null
    return `<div class="code"${at}><button type="button" class="copy" data-copy aria-label="Copy code">Copy</button>${fence(tokens, i, opts, env, self)}</div>\n`
  }
  md.core.ruler.push('line_anchors', (state) => {
    if (!(state.env as RenderEnv)?.lines) return
    for (const t of state.tokens) {
      if (t.level === 0 && t.map && (t.nesting === 1 || (t.nesting === 0 && t.block))) t.attrSet('data-line', String(t.map[0] + 1))
    }
  })
  return md
}

const md = build()

/** Renders Markdown to safe HTML. */
export function renderMarkdown(text: string, env: RenderEnv = {}): string {
  return md.render(text, { ...env })
}

/** Text still streaming in may end inside a citation marker; that tail is
 * hidden until the marker is complete. */
export function streamingText(text: string): string {
  return text.replace(/\[(s(o(u(r(c(e(:[^\]\n]*)?)?)?)?)?)?)?$/, '')
}
