import { describe, expect, it } from 'vitest'
import { docDate, sortDocs } from './librarysort'
import type { DocumentSummary } from './types'

const doc = (key: string, title: string, chunks: number, dates: { event_date?: string; changed?: string } = {}): DocumentSummary => ({
  key, title, chunks, doc_type: 'note', visibility: 'public', source: 'local', ...dates,
})
const docs = [
  doc('b.md', 'Élan', 3, { changed: '2026-05-01T10:00:00Z' }),
  doc('a.md', 'apple', 10, { event_date: '2026-02-15', changed: '2026-06-01T00:00:00Z' }),
  doc('c.md', '', 2),
  doc('d.md', 'Note 10', 1, { changed: '2026-03-09T00:00:00Z' }),
  doc('e.md', 'Note 9', 1, { changed: '2026-03-09T00:00:00Z' }),
]
const keys = (ds: DocumentSummary[]) => ds.map((d) => d.key).join(' ')

describe('sortDocs', () => {
  it('sorts titles as people read them, untitled last either way', () => {
    expect(keys(sortDocs(docs, 'title', 'asc'))).toBe('a.md b.md e.md d.md c.md')
    expect(keys(sortDocs(docs, 'title', 'desc'))).toBe('d.md e.md b.md a.md c.md')
  })
  it('sorts by a record’s date, else the day it changed; undated last; ties keep the store’s order', () => {
    expect(docDate(docs[1])).toBe('2026-02-15')
    expect(keys(sortDocs(docs, 'date', 'asc'))).toBe('a.md d.md e.md b.md c.md')
    expect(keys(sortDocs(docs, 'date', 'desc'))).toBe('b.md d.md e.md a.md c.md')
  })
  it('sorts by chunks as numbers', () => {
    expect(keys(sortDocs(docs, 'chunks', 'desc'))).toBe('a.md b.md c.md d.md e.md')
  })
  it('leaves its input alone', () => {
    const before = keys(docs)
    sortDocs(docs, 'key', 'desc')
    expect(keys(docs)).toBe(before)
  })
})

describe('sortDocs by what shows under a title', () => {
  const under: DocumentSummary[] = [
    { key: 'a', title: 'A', chunks: 1, doc_type: 'paper', visibility: 'public', source: 'a', doi: '10.2/b', tags: ['zoo'] },
    { key: 'b', title: 'B', chunks: 1, doc_type: 'note', visibility: 'private', source: 'local', tags: ['apple'] },
    { key: 'c', title: 'C', chunks: 1, doc_type: 'paper', visibility: 'public', source: 'c', doi: '10.1/a' },
  ]
  it('sorts by DOI and by tags, documents without one last; private ones first on request', () => {
    expect(keys(sortDocs(under, 'doi', 'asc'))).toBe('c a b')
    expect(keys(sortDocs(under, 'tags', 'asc'))).toBe('b a c')
    expect(keys(sortDocs(under, 'private', 'desc'))).toBe('b a c')
    expect(keys(sortDocs(under, 'private', 'asc'))).toBe('a c b')
  })
})
