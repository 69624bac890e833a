import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte'
import { afterEach, describe, expect, it } from 'vitest'
import Library from './Library.svelte'
import { fakeBackend } from './fake'
import type { DocumentSummary, LedgerFilter } from './types'

afterEach(() => cleanup())

const docs: DocumentSummary[] = [
  { key: 'arxiv:2401.00001', cited: 'arxiv:2401.00001', doc_type: 'paper', visibility: 'public', source: 'arxiv:2401.00001', title: 'A paper', chunks: 12,
    sent: { times: 3, last: '2026-12-05T10:00:00Z' } },
  { key: 'garden/roses.md', cited: 'garden/roses.md', doc_type: 'note', visibility: 'public', source: 'local', file_path: 'garden/roses.md', title: 'roses', chunks: 1,
    sent: { times: 1, last: '2026-12-04T09:00:00Z' } },
  { key: 'private/diary.md', cited: 'private/diary.md', doc_type: 'note', visibility: 'private', source: 'local', file_path: 'private/diary.md', title: 'diary', chunks: 2 },
]

describe('Library: what was sent of a document', () => {
  it('says how often each document went to the cloud and opens its requests', async () => {
    const asked: LedgerFilter[] = []
    const w = fakeBackend({
      'Library.Documents': () => docs,
      'Library.Status': () => ({ summary: 'keyword', chunks: 15 }),
      'Library.Ops': () => [],
      'Settings.Ledger': (f: LedgerFilter) => {
        asked.push(f)
        return [{ id: 9, started: '2026-12-05T10:00:00Z', pid: 1, process: 'jarvis', purpose: 'chat turn', provider: 'anthropic', model: 'claude-test',
          local: false, request_bytes: 10, response_bytes: 5, outcome: 'ok', sources: [{ key: f.source, title: 'A paper' }] }]
      },
    })
    render(Library, { props: { backend: w.backend, onView: () => {} } })
    const rows = await screen.findAllByTestId('doc')
    expect(rows).toHaveLength(3)
    expect(within(rows[0]).getByTestId('doc-sent').textContent).toMatch(/sent to the cloud 3 times, last on .*2026/)
    expect(within(rows[1]).getByTestId('doc-sent').textContent).toContain('sent to the cloud once')
    expect(within(rows[2]).queryByTestId('doc-sent')).toBeNull()

    await fireEvent.click(within(rows[0]).getByTestId('doc-sent'))
    const dialog = await screen.findByTestId('doc-sent-dialog')
    expect(dialog.textContent).toContain('What was sent of A paper')
    await waitFor(() => expect(within(dialog).getAllByTestId('ledger-row')).toHaveLength(1))
    expect(asked.at(-1)?.source).toBe('arxiv:2401.00001')
    expect((within(dialog).getByTestId('ledger-source') as HTMLInputElement).value).toBe('arxiv:2401.00001')
  })
})

describe('Library: Zotero items', () => {
  it('opens a Zotero item in Zotero, and in the viewer when Zotero cannot take it', async () => {
    const item: DocumentSummary = { key: 'zotero://select/library/items/ABCD2345', cited: 'zotero://select/library/items/ABCD2345', doc_type: 'paper',
      visibility: 'public', source: 'zotero://select/library/items/ABCD2345', title: 'Sun and Fruit', chunks: 4 }
    let works = true
    const viewed: string[] = []
    const w = fakeBackend({
      'Library.Documents': () => [item, docs[1]],
      'Library.Status': () => ({ summary: 'keyword', chunks: 5 }),
      'Library.Ops': () => [],
      'Shell.Zotero': () => true,
      'Shell.OpenInZotero': () => {
        if (!works) throw new Error('no handler')
        return null
      },
    })
    render(Library, { props: { backend: w.backend, onView: (c) => viewed.push(c.source) } })
    const rows = await screen.findAllByTestId('doc')
    const open = await within(rows[0]).findByTestId('doc-zotero')
    expect(within(rows[1]).queryByTestId('doc-zotero')).toBeNull() // a vault note is not in Zotero
    await fireEvent.click(open)
    await waitFor(() => expect(w.called('Shell.OpenInZotero')[0]?.args).toEqual([item.source]))
    works = false
    await fireEvent.click(open)
    await waitFor(() => expect(viewed).toEqual([item.source]))
  })
})

describe('Library: an encrypted PDF', () => {
  it('asks for the password when an add fails as locked, and adds again with it', async () => {
    let n = 0
    const w = fakeBackend({
      'Library.Documents': () => [],
      'Library.Status': () => ({ summary: 'keyword', chunks: 0 }),
      'Library.Ops': () => [],
      'Library.Add': () => `op${++n}`,
    })
    render(Library, { props: { backend: w.backend, onView: () => {} } })
    await fireEvent.input(screen.getByLabelText('File to add'), { target: { value: '/papers/locked.pdf' } })
    await fireEvent.submit(screen.getByLabelText('File to add').closest('form')!)
    await waitFor(() => expect(w.called('Library.Add')).toHaveLength(1))
    expect(w.called('Library.Add')[0].args).toEqual(['/papers/locked.pdf', true, false, ''])
    w.emit('op', { op_id: 'op1', kind: 'add', title: 'locked.pdf', seq: 2, stage: '', done: 0, total: 0, state: 'failed', code: 'locked',
      error: 'the file is encrypted and needs a password' })
    const dialog = await screen.findByTestId('password-form')
    expect(dialog.textContent).toContain('locked.pdf is password-protected')
    await fireEvent.input(within(dialog).getByLabelText('Password'), { target: { value: 'pw-123' } })
    await fireEvent.submit(within(dialog).getByLabelText('Password').closest('form')!)
    await waitFor(() => expect(w.called('Library.Add')).toHaveLength(2))
    expect(w.called('Library.Add')[1].args).toEqual(['/papers/locked.pdf', true, false, 'pw-123'])
    expect(screen.queryByTestId('password-form')).toBeNull()
    // A failure that is not about the password asks nothing.
    w.emit('op', { op_id: 'op2', kind: 'add', title: 'locked.pdf', seq: 3, stage: '', done: 0, total: 0, state: 'failed', code: 'conversion', error: 'damaged' })
    await new Promise((r) => setTimeout(r, 20))
    expect(screen.queryByTestId('password-form')).toBeNull()
  })

  it('marks hits whose words were recognised by OCR', async () => {
    const w = fakeBackend({
      'Library.Documents': () => [],
      'Library.Status': () => ({ summary: 'keyword', chunks: 1 }),
      'Library.Ops': () => [],
      'Library.Search': () => ({ mode: 'keyword', detail: 'keyword', hits: [
        { citation: { source: 'file:///scan.pdf', title: 'Scan' }, docType: 'paper', private: false, section: '', text: 'validation sweep', score: 1, ocr: 'recognised by OCR, 93% confidence' },
        { citation: { source: 'file:///born.pdf', title: 'Born digital' }, docType: 'paper', private: false, section: '', text: 'validation sweep', score: 0.5 },
      ] }),
    })
    render(Library, { props: { backend: w.backend, onView: () => {} } })
    await fireEvent.input(screen.getByLabelText('Search'), { target: { value: 'validation' } })
    await fireEvent.submit(screen.getByLabelText('Search').closest('form')!)
    const hits = await screen.findAllByTestId('hit')
    expect(within(hits[0]).getByTestId('hit-ocr').getAttribute('title')).toContain('93% confidence')
    expect(within(hits[1]).queryByTestId('hit-ocr')).toBeNull()
  })
})

describe('Library: a large library', () => {
  it('lists 20,000 documents, renders only the rows in view, and sorts them all by year', async () => {
    const many: DocumentSummary[] = Array.from({ length: 20_000 }, (_, i) => ({
      key: `arxiv:${i}`, cited: `arxiv:${i}`, doc_type: 'paper', visibility: 'public', source: `arxiv:${i}`, title: `Paper ${i}`, chunks: 3,
      year: String(1950 + ((i * 7919) % 75)), annotations: i % 3, added: '2026-12-01T10:00:00Z', authors: `Author ${i % 97}`,
    }))
    const w = fakeBackend({ 'Library.Documents': () => many, 'Library.Status': () => ({ summary: 'keyword', chunks: 60_000 }), 'Library.Ops': () => [] })
    render(Library, { props: { backend: w.backend, onView: () => {} } })
    await waitFor(() => expect(screen.getByTestId('doc-count').textContent).toBe('20000 documents'))
    expect(screen.getAllByTestId('doc').length).toBeLessThan(100)
    const firstYear = () => within(screen.getAllByTestId('doc')[0]).getByTestId('doc-year').textContent
    await fireEvent.click(screen.getByTestId('sort-year'))
    await waitFor(() => expect(firstYear()).toBe('2024'))
    expect(screen.getAllByTestId('doc')[0].getAttribute('aria-rowindex')).toBe('2')
    await fireEvent.click(screen.getByTestId('sort-year'))
    await waitFor(() => expect(firstYear()).toBe('1950'))
    // The rows left out are stood in for, so the scroll bar spans them all.
    const spacer = document.querySelector('tr.spacer') as HTMLElement
    expect(parseFloat(spacer.style.height)).toBeGreaterThan(19_000 * 40)
    expect(screen.getAllByTestId('doc').length).toBeLessThan(100)
  })

  it('shows authors, year, DOI, date added and the number of highlights and notes, and sorts by them', async () => {
    const two: DocumentSummary[] = [
      { key: 'arxiv:1', doc_type: 'paper', visibility: 'public', source: 'arxiv:1', title: 'Old', chunks: 5, authors: 'Zed Z', year: '2001', doi: '10.1/old', annotations: 4, added: '2026-01-02T00:00:00Z' },
      { key: 'arxiv:2', doc_type: 'paper', visibility: 'public', source: 'arxiv:2', title: 'New', chunks: 2, authors: 'Amy A', year: '2023', added: '2026-03-04T00:00:00Z' },
    ]
    const w = fakeBackend({ 'Library.Documents': () => two, 'Library.Status': () => ({ summary: 'keyword', chunks: 7 }), 'Library.Ops': () => [] })
    render(Library, { props: { backend: w.backend, onView: () => {} } })
    const rows = await screen.findAllByTestId('doc')
    expect(rows[0].textContent).toContain('Zed Z')
    expect(within(rows[0]).getByTestId('doc-doi').textContent).toBe('doi:10.1/old')
    expect(within(rows[0]).getByTestId('doc-notes').textContent).toBe('4')
    expect(rows[0].textContent).toContain('2026-01-02')
    const titles = () => screen.getAllByTestId('doc').map((r) => r.querySelector('.title')?.textContent)
    await fireEvent.click(screen.getByTestId('sort-authors'))
    expect(titles()).toEqual(['New', 'Old'])
    await fireEvent.click(screen.getByTestId('sort-annotations'))
    expect(titles()).toEqual(['Old', 'New'])
    await fireEvent.click(screen.getByTestId('sort-added'))
    expect(titles()).toEqual(['New', 'Old'])
  })
})

describe('Library: the Sort by menu', () => {
  it('orders by what has no column, such as private documents first, and back to the order added', async () => {
    const w = fakeBackend({ 'Library.Documents': () => docs, 'Library.Status': () => ({ summary: 'keyword', chunks: 15 }), 'Library.Ops': () => [] })
    render(Library, { props: { backend: w.backend, onView: () => {} } })
    await screen.findAllByTestId('doc')
    const keys = () => screen.getAllByTestId('doc').map((r) => r.querySelector('.key')?.textContent)
    expect(keys()).toEqual(['arxiv:2401.00001', 'garden/roses.md', 'private/diary.md'])
    await fireEvent.change(screen.getByTestId('sort-by'), { target: { value: 'private' } })
    expect(keys()[0]).toBe('private/diary.md')
    await fireEvent.change(screen.getByTestId('sort-by'), { target: { value: 'key' } })
    expect(keys()).toEqual(['arxiv:2401.00001', 'garden/roses.md', 'private/diary.md'])
    await fireEvent.change(screen.getByTestId('sort-by'), { target: { value: 'chunks' } })
    expect(keys()[0]).toBe('arxiv:2401.00001') // 12 chunks, most first
    await fireEvent.change(screen.getByTestId('sort-by'), { target: { value: '' } })
    expect(keys()).toEqual(['arxiv:2401.00001', 'garden/roses.md', 'private/diary.md'])
  })
})
