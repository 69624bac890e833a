import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte'
import { afterEach, describe, expect, it } from 'vitest'
import CloudLedger from './CloudLedger.svelte'
import { fakeBackend } from './fake'
import type { LedgerFilter, LedgerRecord } from './types'

afterEach(() => cleanup())

const rec = (id: number, over: Partial<LedgerRecord>): LedgerRecord => ({
  id, started: '2026-12-05T10:00:00Z', finished: '2026-12-05T10:00:02Z', pid: 42, process: 'jarvis', purpose: 'chat turn',
  provider: 'anthropic', model: 'claude-sonnet-4-6', local: false, session: '20261205-100000-0123456789ab',
  request_bytes: 4096, response_bytes: 512, outcome: 'ok', ...over,
})

const records = [
  rec(2, { sources: [{ key: 'projects/alpha.md', title: 'Alpha' }, { key: 'arxiv:2401.00001', title: 'A paper' }], body: '{"messages":[{"role":"user","content":"what is alpha?"}]}', input_tokens: 900, output_tokens: 40 }),
  rec(1, { purpose: 'digest scoring', provider: 'openrouter', model: 'meta/llama-4', outcome: 'incomplete' }),
]

describe('Settings → Sent to the cloud', () => {
  it('lists the records, opens one with its body and documents, and filters by a document', async () => {
    const asked: LedgerFilter[] = []
    const w = fakeBackend({
      'Settings.AskBeforeSending': () => false,
      'Settings.Ledger': (f: LedgerFilter) => {
        asked.push(f)
        return f.source ? records.filter((r) => r.sources?.some((s) => s.key === f.source)) : records
      },
    })
    render(CloudLedger, { props: { backend: w.backend } })
    const rows = await screen.findAllByTestId('ledger-row')
    expect(rows.length).toBe(2)
    expect(rows[0].textContent).toContain('anthropic:claude-sonnet-4-6')
    expect(rows[0].textContent).toContain('2 documents · 4.0 KB → 512 B')
    expect(rows[1].textContent).toContain('incomplete')
    expect(asked[0]).toEqual({ session: '', source: '', provider: '', purpose: '', local: false })

    await fireEvent.click(rows[0].querySelector('button.row')!)
    const detail = screen.getByTestId('ledger-detail')
    expect(detail.textContent).toContain('900 + 40 tokens')
    expect(screen.getByTestId('ledger-body').textContent).toContain('"content": "what is alpha?"')
    const chips = screen.getAllByTestId('ledger-chip')
    expect(chips.map((c) => c.textContent)).toEqual(['Alpha', 'A paper'])

    await fireEvent.click(chips[0])
    await waitFor(() => expect(screen.getAllByTestId('ledger-row').length).toBe(1))
    expect(asked.at(-1)?.source).toBe('projects/alpha.md')
    expect((screen.getByTestId('ledger-source') as HTMLInputElement).value).toBe('projects/alpha.md')

    await fireEvent.click(screen.getAllByTestId('ledger-row')[0].querySelector('button.row')!)
    expect(screen.queryByTestId('ledger-body')).not.toBeNull()
  })

  it('filters by provider and purpose (from what the records hold), and shows local requests on request', async () => {
    const asked: LedgerFilter[] = []
    const w = fakeBackend({
      'Settings.AskBeforeSending': () => false,
      'Settings.Ledger': (f: LedgerFilter) => {
        asked.push({ ...f })
        return records.filter((r) => (!f.provider || r.provider === f.provider) && (!f.purpose || r.purpose === f.purpose))
      },
    })
    render(CloudLedger, { props: { backend: w.backend } })
    await waitFor(() => expect(screen.getAllByTestId('ledger-row').length).toBe(2))
    const provider = screen.getByLabelText('Provider') as HTMLSelectElement
    expect([...provider.options].map((o) => o.value)).toEqual(['', 'anthropic', 'openrouter'])
    await fireEvent.change(provider, { target: { value: 'openrouter' } })
    await waitFor(() => expect(screen.getAllByTestId('ledger-row').length).toBe(1))
    expect(asked.at(-1)?.provider).toBe('openrouter')
    expect(screen.getByTestId('ledger-row').textContent).toContain('digest scoring')
    await fireEvent.change(provider, { target: { value: '' } })
    await waitFor(() => expect(screen.getAllByTestId('ledger-row').length).toBe(2))
    const purpose = screen.getByLabelText('Purpose') as HTMLSelectElement
    await fireEvent.change(purpose, { target: { value: 'chat turn' } })
    await waitFor(() => expect(screen.getAllByTestId('ledger-row').length).toBe(1))
    expect(asked.at(-1)).toMatchObject({ purpose: 'chat turn', provider: '', local: false })
    await fireEvent.click(screen.getByLabelText('Local too'))
    await waitFor(() => expect(asked.at(-1)?.local).toBe(true))
  })

  it('reads the records again each time the view is shown again', async () => {
    let calls = 0
    const w = fakeBackend({ 'Settings.AskBeforeSending': () => false, 'Settings.Ledger': () => (++calls === 1 ? [records[1]] : records) })
    const view = render(CloudLedger, { props: { backend: w.backend, active: true } })
    await waitFor(() => expect(screen.getAllByTestId('ledger-row').length).toBe(1))
    await view.rerender({ backend: w.backend, active: false })
    expect(calls).toBe(1) // hidden: nothing is read
    await view.rerender({ backend: w.backend, active: true })
    await waitFor(() => expect(screen.getAllByTestId('ledger-row').length).toBe(2))
    expect(calls).toBe(2)
  })

  it('says an incomplete request may have arrived, and that nothing matched', async () => {
    const w = fakeBackend({ 'Settings.AskBeforeSending': () => false, 'Settings.Ledger': (f: LedgerFilter) => (f.session ? [] : [records[1]]) })
    render(CloudLedger, { props: { backend: w.backend } })
    const row = await screen.findByTestId('ledger-row')
    await fireEvent.click(row.querySelector('button.row')!)
    expect(screen.getByTestId('ledger-detail').textContent).toContain('may or may not have reached openrouter')
    await fireEvent.input(screen.getByLabelText('Session'), { target: { value: 'nope' } })
    await fireEvent.click(screen.getByText('Filter'))
    expect(await screen.findByTestId('ledger-empty')).toBeTruthy()
  })
})
