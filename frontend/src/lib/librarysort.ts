import type { DocumentSummary } from './types'

/** The Library's sortable columns. */
export type SortKey = 'title' | 'authors' | 'year' | 'date' | 'added' | 'annotations' | 'chunks' | 'key' | 'doi' | 'tags' | 'private'
export type SortDir = 'asc' | 'desc'

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
export function sortDocs(docs: DocumentSummary[], key: SortKey, dir: SortDir): DocumentSummary[] {
  const sign = dir === 'asc' ? 1 : -1
  const value = (d: DocumentSummary): string | number => {
    switch (key) {
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
