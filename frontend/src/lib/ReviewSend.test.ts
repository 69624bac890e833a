import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte'
import { describe, expect, it } from 'vitest'
import App from '../App.svelte'
import CloudLedger from './CloudLedger.svelte'
import { completeSetup, fakeBackend } from './fake'
import type { Passage, SessionView } from './types'
import { resetBetweenTests } from './testreset'

const info = { version: '0.1.0', provider: 'anthropic', model: 'claude-test', dataDir: '/tmp/j', warnings: [] as string[] }
const cloud: SessionView = { id: 'a', title: 'Chat a', spec: 'anthropic:claude-test', private: false, kbOnly: true, pinned: false, costUsd: 0, busy: false,
  display: [], cloud: true, asksBeforeSending: true }
const passages: Passage[] = [
  { title: 'tomatoes — Tomatoes', source: 'garden/tomatoes.md', text: '--- 1. [source: garden/tomatoes.md] tomatoes\nTomato plants need full sun.\n', bytes: 70 },
  { title: 'roses — Roses', source: 'garden/roses.md', text: '--- 2. [source: garden/roses.md] roses\nPrune roses in winter.\n', bytes: 60 },
]

function world() {
  let view = cloud
  return fakeBackend({
    'Shell.Info': () => info,
    'Setup.State': () => completeSetup,
    'Chat.List': () => [{ id: 'a', title: 'Chat a', updated: '', pinned: false, private: false, spec: cloud.spec, busy: false }],
    'Chat.Models': () => [],
    'Chat.Open': () => view,
    'Chat.Send': () => null,
    'Chat.Review': () => null,
    'Chat.SetAskBeforeSending': (_id: string, on: boolean) => (view = { ...view, asksBeforeSending: on }),
  })
}

Element.prototype.scrollIntoView = function () {}
resetBetweenTests()

describe('ask before sending', () => {
  it('shows the passages a cloud model would get and sends only the ticked ones', async () => {
    const w = world()
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    await fireEvent.input(await screen.findByLabelText('Message'), { target: { value: 'tomatoes?' } })
    await fireEvent.click(screen.getByText('Send'))
    w.emit('chat', { session_id: 'a', seq: 1, kind: 'review', text: 'Send 2 passages from 2 documents (130 bytes) to anthropic:claude-test?', data: { token: 'r1', passages } })
    const card = await screen.findByTestId('review')
    expect(card.textContent).toContain('Send 2 passages from 2 documents')
    const items = within(card).getAllByTestId('review-passage')
    expect(items.map((i) => i.textContent)).toEqual([expect.stringContaining('garden/tomatoes.md'), expect.stringContaining('garden/roses.md')])
    await fireEvent.click(within(items[1]).getByText('Show text'))
    expect(within(card).getByTestId('review-text').textContent).toContain('Prune roses in winter.')

    await fireEvent.click(within(items[1]).getByRole('checkbox'))
    const send = within(card).getByTestId('review-send')
    expect(send.textContent).toContain('Send 1 of 2 (70 bytes)')
    await fireEvent.click(send)
    await waitFor(() => expect(w.called('Chat.Review')[0]?.args).toEqual(['r1', true, [1]]))
    expect(screen.queryByTestId('review')).toBeNull()
  })

  it('cancels with nothing sent, and the session switch goes to the backend', async () => {
    const w = world()
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    const ask = (await screen.findByTestId('ask-before-sending')) as HTMLInputElement
    expect(ask.checked).toBe(true)
    await fireEvent.click(ask)
    await waitFor(() => expect(w.called('Chat.SetAskBeforeSending')[0]?.args).toEqual(['a', false]))

    await fireEvent.input(await screen.findByLabelText('Message'), { target: { value: 'tomatoes?' } })
    await fireEvent.click(screen.getByText('Send'))
    w.emit('chat', { session_id: 'a', seq: 1, kind: 'review', text: 'Send 2 passages?', data: { token: 'r2', passages } })
    await fireEvent.click(await screen.findByTestId('review-cancel'))
    await waitFor(() => expect(w.called('Chat.Review')[0]?.args).toEqual(['r2', false, []]))
  })

  it('is a Settings default beside the ledger', async () => {
    let on = false
    const w = fakeBackend({
      'Settings.Ledger': () => [],
      'Settings.AskBeforeSending': () => on,
      'Settings.SetAskBeforeSending': (v: boolean) => void (on = v),
    })
    render(CloudLedger, { props: { backend: w.backend } })
    const box = (await screen.findByTestId('ask-default')) as HTMLInputElement
    expect(box.checked).toBe(false)
    await fireEvent.click(box)
    await waitFor(() => expect(on).toBe(true))
  })
})
