// An answer copied for Obsidian: each [source: X] marker whose citation is
// a vault note becomes that note's wikilink, so the pasted answer links
// back into the vault; papers and chats keep a readable "(source)".
import type { Citation } from './types'

const MARKER = /\[source:\s*([^\]\n]+?)\s*\]/g

export function forObsidian(text: string, citations: Citation[] = []): string {
  const bySource = new Map(citations.map((c) => [c.source, c]))
  return text.replace(MARKER, (_, inner: string) => {
    const [source, ...rest] = inner.split(/,\s*(?=p\.\s*\d)/)
    const c = bySource.get(source.trim())
    if (c?.wikilink) return c.wikilink
    const page = rest.length ? `, ${rest.join(', ')}` : ''
    return `(${c?.title || source.trim()}${page})`
  })
}
