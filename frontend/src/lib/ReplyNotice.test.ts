import { cleanup, fireEvent, render, screen } from '@testing-library/svelte'
import { afterEach, describe, expect, it } from 'vitest'
import App from '../App.svelte'
import { completeSetup, fakeBackend } from './fake'
import type { DisplayItem, SessionView } from './types'

function world(display: DisplayItem[]) {
  const view: SessionView = { id: 'a', title: 'Chat a', spec: 'anthropic:claude', private: false, kbOnly: true, pinned: false, costUsd: 0, busy: false, display }
  return fakeBackend({
    'Shell.Info': () => ({ version: '0.1.0', provider: 'anthropic', model: 'claude', dataDir: '/tmp/j', warnings: [] }),
    'Chat.List': () => [{ id: 'a', title: 'Chat a', updated: '', pinned: false, private: false, spec: view.spec, busy: false }],
    'Chat.Models': () => [],
    'Setup.State': () => completeSetup,
    'Chat.Open': () => view,
    'Chat.Continue': () => null,
  })
}

afterEach(() => cleanup())

describe('a reply that did not end normally', () => {
  it('labels a task paused at the tool-call limit and continues it', async () => {
    const w = world([
      { role: 'user', text: 'check every bed', at: '' },
      { role: 'assistant', text: 'Beds 1-3 checked.', at: '', stop: 'tool_limit', notice: 'paused at the tool-call limit for one turn' },
    ])
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    expect((await screen.findByTestId('reply-notice')).textContent).toMatch(/Paused.*what it found so far is kept/)
    await fireEvent.click(screen.getByText('Continue'))
    expect(w.called('Chat.Continue')).toHaveLength(1)
  })

  it('labels a cut-off reply and continues it', async () => {
    const w = world([
      { role: 'user', text: 'deposit?', at: '' },
      { role: 'assistant', text: 'The deposit of 1200 EUR is returned in', at: '', stop: 'length', notice: 'cut off at the output limit' },
    ])
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    expect((await screen.findByTestId('reply-notice')).textContent).toMatch(/Cut off.*output limit/)
    await fireEvent.click(screen.getByText('Continue'))
    expect(w.called('Chat.Continue')[0].args).toEqual(['a'])
    expect(await screen.findByTestId('turn')).toBeTruthy()
    expect(screen.queryByText('Continue', { selector: 'button' })).toBeNull() // not twice while it runs
  })

  it('shows a refusal as a notice with no Continue', async () => {
    const w = world([
      { role: 'user', text: 'how do I?', at: '' },
      { role: 'assistant', text: '⚠️ No answer: the model declined to answer.', at: '', stop: 'refusal', notice: 'the model declined to answer' },
    ])
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    expect((await screen.findByTestId('reply-notice')).textContent).toContain('the model declined to answer')
    expect(screen.queryByText('Continue')).toBeNull()
    expect(screen.queryByTestId('warning')).toBeNull() // one notice, not also a failure
  })
})
