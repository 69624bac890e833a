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

/** The window with chat a, whose reply is the one under test, opened. */
async function openChat(display: DisplayItem[]) {
  const w = world(display)
  render(App, { props: { backend: w.backend } })
  await fireEvent.click(await screen.findByText('Chat a'))
  return w
}

afterEach(() => cleanup())

describe('a reply that did not end normally', () => {
  it('labels a task paused at the tool-call limit and continues it', async () => {
    const w = await openChat([
      { role: 'user', text: 'check every bed', at: '' },
      { role: 'assistant', text: 'Beds 1-3 checked.', at: '', stop: 'tool_limit', notice: 'paused at the tool-call limit for one turn' },
    ])
    expect((await screen.findByTestId('reply-notice')).textContent).toMatch(/Paused.*what it found so far is kept/)
    await fireEvent.click(screen.getByText('Continue'))
    expect(w.called('Chat.Continue')).toHaveLength(1)
  })

  it('labels a cut-off reply and continues it', async () => {
    const w = await openChat([
      { role: 'user', text: 'deposit?', at: '' },
      { role: 'assistant', text: 'The deposit of 1200 EUR is returned in', at: '', stop: 'length', notice: 'cut off at the output limit' },
    ])
    expect((await screen.findByTestId('reply-notice')).textContent).toMatch(/Cut off.*output limit/)
    await fireEvent.click(screen.getByText('Continue'))
    expect(w.called('Chat.Continue')[0].args).toEqual(['a'])
    expect(await screen.findByTestId('turn')).toBeTruthy()
    expect(screen.queryByText('Continue', { selector: 'button' })).toBeNull() // not twice while it runs
  })

  it('shows a refusal as a notice with no Continue', async () => {
    const w = await openChat([
      { role: 'user', text: 'how do I?', at: '' },
      { role: 'assistant', text: '⚠️ No answer: the model declined to answer.', at: '', stop: 'refusal', notice: 'the model declined to answer' },
    ])
    expect((await screen.findByTestId('reply-notice')).textContent).toContain('the model declined to answer')
    expect(screen.queryByText('Continue')).toBeNull()
    expect(screen.queryByTestId('warning')).toBeNull() // one notice, not also a failure
  })
})

describe('a task that went on by itself at the tool-call limit', () => {
  it('shows the paused part, then the continuation running, which Stop ends', async () => {
    let display: DisplayItem[] = []
    const w = fakeBackend({
      'Shell.Info': () => ({ version: '0.1.0', provider: 'anthropic', model: 'claude', dataDir: '/tmp/j', warnings: [] }),
      'Chat.List': () => [{ id: 'a', title: 'Chat a', updated: '', pinned: false, private: false, spec: 'anthropic:claude', busy: false }],
      'Chat.Models': () => [],
      'Setup.State': () => completeSetup,
      'Chat.Open': () => ({ id: 'a', title: 'Chat a', spec: 'anthropic:claude', private: false, kbOnly: true, pinned: false, costUsd: 0, busy: false, display }),
      'Chat.Send': () => null,
      'Chat.Stop': () => true,
    })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    await fireEvent.input(await screen.findByLabelText('Message'), { target: { value: 'check every bed' } })
    await fireEvent.click(screen.getByText('Send'))
    // The first part pauses at the limit; the backend says it goes on.
    display = [
      { role: 'user', text: 'check every bed', at: '' },
      { role: 'assistant', text: 'Beds 1-3 checked.', at: '', stop: 'tool_limit', notice: 'paused at the tool-call limit for one turn' },
    ]
    w.emit('chat', { session_id: 'a', seq: 4, kind: 'reply', text: 'Beds 1-3 checked.', data: { stop: 'tool_limit', continuing: true, citations: [] } })
    w.emit('chat', { session_id: 'a', seq: 5, kind: 'status', text: 'paused at the tool-call limit; continuing automatically (1 of 1)' })
    expect((await screen.findByTestId('continuing')).textContent).toContain('Continuing automatically')
    expect(screen.getByTestId('status').textContent).toContain('continuing automatically (1 of 1)')
    expect((await screen.findByText('Beds 1-3 checked.'))).toBeTruthy()
    expect(screen.queryByText('Continue', { selector: 'button' })).toBeNull() // nothing to click while it runs
    expect(screen.getByText('Stop')).toBeTruthy()
    await fireEvent.click(screen.getByText('Stop'))
    expect(w.called('Chat.Stop')[0].args).toEqual(['a'])
    expect(screen.queryByTestId('continuing')).toBeNull()
  })

  it('marks a continuation in the conversation instead of showing its prompt', async () => {
    const prompt = 'Your previous turn reached the tool-call limit before the task was done. Continue it.'
    const w = await openChat([
      { role: 'user', text: 'check every bed', at: '' },
      { role: 'assistant', text: 'Beds 1-3 checked.', at: '', stop: 'tool_limit', notice: 'paused at the tool-call limit for one turn' },
      { role: 'user', text: prompt, at: '', continued: 'auto' },
      { role: 'assistant', text: 'Beds 4-6 checked.', at: '', stop: 'tool_limit', notice: 'paused at the tool-call limit for one turn' },
    ])
    expect((await screen.findByTestId('continued')).textContent).toBe('Continued automatically at the tool-call limit')
    expect(screen.queryByText(prompt)).toBeNull()
    expect(screen.getAllByText('Continue', { selector: 'button' })).toHaveLength(1) // on the last reply only
  })
})
