import { describe, expect, it } from 'vitest'
import { docKind, sortDocs, type LibraryDoc } from './librarysort'

const keys = (ds: LibraryDoc[]) => ds.map((d) => d.key).join(' ')

describe('docKind', () => {
  it('names a Zotero item by its type, a record by its type, the rest by what the store calls it', () => {
    const base = { title: 't', chunks: 1, visibility: 'public', source: 's' }
    expect(docKind({ ...base, key: 'a', doc_type: 'paper', item_type: 'journalArticle' })).toBe('Journal article')
    expect(docKind({ ...base, key: 'b', doc_type: 'paper', item_type: 'book' })).toBe('Book')
    expect(docKind({ ...base, key: 'c', doc_type: 'paper' })).toBe('Paper')
    expect(docKind({ ...base, key: 'd', doc_type: 'digest' })).toBe('Digest')
    expect(docKind({ ...base, key: 'e', doc_type: 'note', category: 'job_application' })).toBe('Job application')
    expect(docKind({ ...base, key: 'f', doc_type: 'note' })).toBe('Note')
    expect(docKind({ ...base, key: 'g', doc_type: 'chat' })).toBe('Chat')
  })
})

describe('sortDocs by kind', () => {
  // The Papers tab: Zotero items of three types, a PDF added by hand and a digest, in the store's order.
  const papers: LibraryDoc[] = [
    { key: 'z1', title: 'Rhubarb', chunks: 2, doc_type: 'paper', visibility: 'public', source: 'zotero://1', item_type: 'preprint' },
    { key: 'p1', title: 'Sparse', chunks: 9, doc_type: 'paper', visibility: 'public', source: 'arXiv:1' },
    { key: 'z2', title: 'Glaciers', chunks: 3, doc_type: 'paper', visibility: 'public', source: 'zotero://2', item_type: 'journalArticle' },
    { key: 'z3', title: 'Allotments', chunks: 1, doc_type: 'paper', visibility: 'public', source: 'zotero://3', item_type: 'book' },
    { key: 'd1', title: 'Weekly', chunks: 1, doc_type: 'digest', visibility: 'public', source: 'digest:1' },
    { key: 'z4', title: 'Soil', chunks: 1, doc_type: 'paper', visibility: 'public', source: 'zotero://4', item_type: 'journalArticle' },
  ]
  it('groups a tab by kind, A to Z and back, documents of one kind in the store’s order', () => {
    expect(keys(sortDocs(papers, 'kind', 'asc'))).toBe('z3 d1 z2 z4 p1 z1')
    expect(keys(sortDocs(papers, 'kind', 'desc'))).toBe('z1 p1 z2 z4 d1 z3')
  })
  it('sorts records by their type, plain notes among them as "Note"', () => {
    const notes: LibraryDoc[] = [
      { key: 'm.md', title: 'M', chunks: 1, doc_type: 'note', visibility: 'public', source: 'local', category: 'meeting' },
      { key: 'n.md', title: 'N', chunks: 1, doc_type: 'note', visibility: 'public', source: 'local' },
      { key: 'h.md', title: 'H', chunks: 1, doc_type: 'note', visibility: 'public', source: 'local', category: 'howto' },
    ]
    expect(keys(sortDocs(notes, 'kind', 'asc'))).toBe('h.md m.md n.md')
  })
  it('sorts 20k documents by kind quickly', () => {
    const types = ['book', 'journalArticle', 'preprint', 'thesis', '']
    const many: LibraryDoc[] = Array.from({ length: 20000 }, (_, i) => ({
      key: `k${i}`, title: `T${i}`, chunks: 1, doc_type: 'paper', visibility: 'public', source: `s${i}`, item_type: types[i % types.length] || undefined,
    }))
    const t0 = performance.now()
    const out = sortDocs(many, 'kind', 'asc')
    expect(performance.now() - t0).toBeLessThan(1000)
    expect(out[0].item_type).toBe('book')
    expect(out.at(-1)?.item_type).toBe('thesis')
    // Book, Journal article, Paper (no item type), Preprint, Thesis: 4000 of each, in that order.
    const runs = out.filter((d, i) => i === 0 || docKind(d) !== docKind(out[i - 1])).map(docKind)
    expect(runs).toEqual(['Book', 'Journal article', 'Paper', 'Preprint', 'Thesis'])
  })
})
