// TeX maths for markdown-it, typeset by KaTeX. Delimiters: $…$ and \(…\)
// inline, $$…$$ and \[…\] display. Display maths on a line of its own (or
// spanning lines) is a block; followed by text on the same line it stays in
// the paragraph, so "$$E = mc^2$$ and more text" keeps both. (The published
// markdown-it maths plugins drop or swallow that text.) "$5 and $10" is
// money: a single-$ span may not start or end with a space or be followed
// by a digit.
import type { MarkdownIt, StateBlock, StateInline } from 'markdown-it'
import katex from 'katex'

const pairs: [string, string, boolean][] = [
  ['$$', '$$', true],
  ['\\[', '\\]', true],
  ['\\(', '\\)', false],
  ['$', '$', false],
]

export function typeset(tex: string, display: boolean): string {
  // throwOnError false: a formula KaTeX cannot read is shown as its source
  // (in the error colour, the reason in its title), never dropped.
  return katex.renderToString(tex, { displayMode: display, throwOnError: false, output: 'htmlAndMathml' })
}

function inline(state: StateInline, silent: boolean): boolean {
  const src = state.src
  const pos = state.pos
  const pair = pairs.find(([open]) => src.startsWith(open, pos))
  if (!pair) return false
  const [open, close, display] = pair
  const start = pos + open.length
  let end = src.indexOf(close, start)
  while (open === '$' && end > 0 && src[end - 1] === '\\') end = src.indexOf(close, end + 1)
  if (end <= start) return false
  const body = src.slice(start, end)
  if (open === '$' && (/^\s|\s$/.test(body) || /\d/.test(src[end + 1] ?? ''))) return false
  if (!silent) {
    const t = state.push('math_inline', 'math', 0)
    t.content = body
    t.markup = open
    t.meta = { display }
  }
  state.pos = end + close.length
  return true
}

function block(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine] - state.blkIndent >= 4) return false
  const lineText = (n: number) => state.src.slice(state.bMarks[n] + state.tShift[n], state.eMarks[n])
  const first = lineText(startLine)
  const pair = pairs.find(([open, , display]) => display && first.startsWith(open))
  if (!pair) return false
  const [open, close] = pair
  const rest = first.slice(open.length)
  let content: string
  let last = startLine
  const closeAt = rest.indexOf(close)
  if (closeAt >= 0) {
    if (rest.slice(closeAt + close.length).trim() !== '') return false // text follows: inline
    content = rest.slice(0, closeAt)
  } else {
    const lines = [rest]
    let found = false
    for (last = startLine + 1; last < endLine; last++) {
      const l = lineText(last)
      const at = l.indexOf(close)
      if (at >= 0) {
        if (l.slice(at + close.length).trim() !== '') return false
        lines.push(l.slice(0, at))
        found = true
        break
      }
      lines.push(l)
    }
    if (!found) return false
    content = lines.join('\n')
  }
  if (silent) return true
  const t = state.push('math_block', 'math', 0)
  t.block = true
  t.content = content
  t.markup = open
  t.map = [startLine, last + 1]
  state.line = last + 1
  return true
}

export function mathPlugin(md: MarkdownIt) {
  md.inline.ruler.before('escape', 'math_inline', inline)
  md.block.ruler.before('fence', 'math_block', block, { alt: ['paragraph', 'reference', 'blockquote', 'list'] })
  md.renderer.rules.math_inline = (tokens, i) => typeset(tokens[i].content, !!tokens[i].meta?.display)
  md.renderer.rules.math_block = (tokens, i, _o, _env, self) =>
    `<div class="math-block"${self.renderAttrs(tokens[i])}>${typeset(tokens[i].content, true)}</div>\n`
}
