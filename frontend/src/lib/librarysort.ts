import type { DocumentSummary } from './types'

/** The Library's sortable columns. */
export type SortKey = 'title' | 'kind' | 'authors' | 'year' | 'date' | 'added' | 'annotations' | 'chunks' | 'key' | 'doi' | 'tags' | 'private'
export type SortDir = 'asc' | 'desc'

/** A Library row: the document, and a Zotero item's type when it is one (the listing's item_type). */
export type LibraryDoc = DocumentSummary & { item_type?: string }

/** "journalArticle" and "job_application" as a person writes them: "Journal article", "Job application". */
function words(s: string): string {
  const w = s.replace(/_/g, ' ').replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().trim()
  return w.charAt(0).toUpperCase() + w.slice(1)
}

const docTypeKinds: Record<string, string> = { paper: 'Paper', digest: 'Digest', note: 'Note', chat: 'Chat' }

/**
 * What kind of document it is within its tab: a Zotero item's type (Book,
 * Journal article, Preprint …), a record's type (its frontmatter type or
 * category), else what the store calls it (Paper, Digest, Note, Chat).
 */
export function docKind(d: LibraryDoc): string {
  if (d.item_type) return words(d.item_type)
  if (d.doc_type === 'note' && d.category) return words(d.category)
  return docTypeKinds[d.doc_type] ?? (d.doc_type ? words(d.doc_type) : '')
}

/** A document's date as the Library shows it: a record's own date, else the day it last changed. */
export function docDate(d: DocumentSummary): string {
  return d.event_date || (d.changed ?? '').slice(0, 10)
}

const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true })

/**
 * The documents ordered by one column. Titles and keys compare as people
 * read them (case and accents aside, numbers by value); documents without a
 * value (no date, year, authors or title) go last either way; ties keep the order the store gave.
 */
export function sortDocs<D extends LibraryDoc>(docs: D[], key: SortKey, dir: SortDir): D[] {
  const sign = dir === 'asc' ? 1 : -1
  const value = (d: D): string | number => {
    switch (key) {
      case 'kind':
        return docKind(d)
      case 'chunks':
        return d.chunks
      case 'annotations':
        return d.annotations ?? 0
      case 'date':
        return docDate(d)
      case 'added':
        return d.added ?? ''
      case 'year':
        return d.year ?? ''
      case 'authors':
        return d.authors ?? ''
      case 'key':
        return d.key
      case 'doi':
        return d.doi ?? ''
      case 'tags':
        return (d.tags ?? []).join(' ')
      case 'private':
        return d.visibility === 'private' ? 1 : 0 // ascending: public first
    }
    return d.title || ''
  }
  return docs
    .map((d, i) => ({ d, i, v: value(d) }))
    .sort((a, b) => {
      const emptyA = a.v === '', emptyB = b.v === ''
      if (emptyA !== emptyB) return emptyA ? 1 : -1
      const c = typeof a.v === 'number' && typeof b.v === 'number' ? a.v - b.v : collator.compare(String(a.v), String(b.v))
      return c !== 0 ? sign * c : a.i - b.i
    })
    .map((x) => x.d)
}
