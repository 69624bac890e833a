// What the drafts editor highlights a file as, by its extension: LaTeX
// (.tex, .bib: CodeMirror's legacy stex mode), Markdown (.md), plain text
// otherwise. Colours come from the stylesheet's --syn-* tokens, so both
// colour schemes keep their contrast.
import type { Extension } from '@codemirror/state'
import { HighlightStyle, StreamLanguage, syntaxHighlighting } from '@codemirror/language'
import { markdown } from '@codemirror/lang-markdown'
import { stex } from '@codemirror/legacy-modes/mode/stex'
import { tags as t } from '@lezer/highlight'

export type SourceKind = 'latex' | 'markdown' | 'text'

export function kindOf(file: string): SourceKind {
  const ext = file.toLowerCase().split('.').pop()
  if (ext === 'tex' || ext === 'bib') return 'latex'
  if (ext === 'md') return 'markdown'
  return 'text'
}

const latex = StreamLanguage.define(stex)

export function languageFor(file: string): Extension {
  switch (kindOf(file)) {
    case 'latex':
      return latex
    case 'markdown':
      return markdown()
    default:
      return []
  }
}

export const highlighting = syntaxHighlighting(
  HighlightStyle.define([
    { tag: t.tagName, color: 'var(--syn-command)' }, // \commands
    { tag: [t.atom, t.labelName], color: 'var(--syn-name)' }, // {environment} names
    { tag: [t.keyword, t.special(t.variableName), t.number], color: 'var(--syn-math)' }, // $maths$
    { tag: [t.comment, t.meta, t.processingInstruction], color: 'var(--syn-comment)' },
    { tag: t.heading, color: 'var(--syn-heading)', fontWeight: '600' },
    { tag: [t.link, t.url], color: 'var(--link)' },
    { tag: t.monospace, color: 'var(--syn-code)' },
    { tag: t.emphasis, fontStyle: 'italic' },
    { tag: t.strong, fontWeight: '600' },
  ]),
)
