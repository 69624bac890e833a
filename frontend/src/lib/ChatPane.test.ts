import { fireEvent, render, screen, waitFor } from '@testing-library/svelte'
import { describe, expect, it } from 'vitest'
import App from '../App.svelte'
import { fakeBackend, type Handler } from './fake'
import type { SessionView } from './types'
import { resetBetweenTests } from './testreset'

const info = { version: '0.1.0', provider: 'ollama', model: 'qwen3', dataDir: '/tmp/j', warnings: [] as string[] }
const at = '2026-03-02T10:00:00Z'

// open is a backend with one chat, view, plus any other handlers.
function open(view: SessionView, more: Record<string, Handler> = {}) {
  return fakeBackend({
    'Shell.Info': () => info,
    'Chat.List': () => [{ id: view.id, title: view.title, updated: '', pinned: false, private: false, spec: view.spec, busy: false }],
    'Chat.Models': () => [],
    'Chat.Open': () => view,
    ...more,
  })
}

const base: SessionView = { id: 'a', title: 'Chat a', spec: 'ollama:qwen3', private: false, kbOnly: false, pinned: false, costUsd: 0, busy: false, display: [] }

Element.prototype.scrollIntoView = function () {}
resetBetweenTests()

describe('the chat pane', () => {
  it('marks a reply given from general knowledge with its own badge', async () => {
    const w = open({
      ...base,
      display: [
        { role: 'user', text: 'capital of France?', at },
        { role: 'assistant', text: 'Paris.', at, own_knowledge: true },
        { role: 'user', text: 'tomatoes?', at },
        { role: 'assistant', text: 'Full sun [source: garden/tomatoes.md].', at, citations: [{ source: 'garden/tomatoes.md' }] },
      ],
    })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    const badges = await screen.findAllByTestId('own-knowledge')
    expect(badges.length).toBe(1)
    expect(badges[0].closest('article')?.textContent).toContain('Paris.')
  })

  it('says under a reply what the turn sent to the cloud', async () => {
    const w = open({
      ...base,
      display: [
        { role: 'user', text: 'tomatoes?', at },
        { role: 'assistant', text: 'Full sun.', at, sent: 'sent 3 passages from 2 documents to anthropic:claude-sonnet-4-6 (2 requests)' },
        { role: 'user', text: 'and roses?', at },
        { role: 'assistant', text: 'Prune in winter.', at },
      ],
    })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    const lines = await screen.findAllByTestId('sent-line')
    expect(lines.length).toBe(1)
    expect(lines[0].textContent).toBe('sent 3 passages from 2 documents to anthropic:claude-sonnet-4-6 (2 requests)')
    expect(lines[0].closest('article')?.textContent).toContain('Full sun.')
  })

  it('shows a question a crash left unanswered and gives it back to the message box', async () => {
    const w = open({ ...base, display: [], pending: 'how deep do I water tomatoes?' })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    expect((await screen.findByTestId('unanswered')).textContent).toContain('how deep do I water tomatoes?')
    await waitFor(() => expect((screen.getByLabelText('Message') as HTMLTextAreaElement).value).toBe('how deep do I water tomatoes?'))
  })

  it('copies a cited note as a wikilink and the answer with Obsidian links, and opens the note in Obsidian', async () => {
    const w = open(
      {
        ...base,
        display: [
          { role: 'user', text: 'tomatoes?', at },
          { role: 'assistant', text: 'Full sun [source: garden/tomatoes.md], as the paper says [source: https://arxiv.org/abs/2401.01234, p.3].', at,
            citations: [{ source: 'garden/tomatoes.md', file_path: 'garden/tomatoes.md', wikilink: '[[garden/tomatoes#Light]]' },
              { source: 'https://arxiv.org/abs/2401.01234', title: 'Sun and Fruit', page: 3 }] },
        ],
      },
      {
        'Shell.Obsidian': () => true,
        'Shell.OpenInObsidian': () => null,
      },
    )
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    await fireEvent.click(await screen.findByTestId('copy-wikilink'))
    await fireEvent.click(screen.getByTestId('copy-obsidian'))
    await waitFor(() => expect(w.called('runtime.ClipboardSetText').map((c) => c.args[0])).toEqual([
      '[[garden/tomatoes#Light]]',
      'Full sun [[garden/tomatoes#Light]], as the paper says (Sun and Fruit, p.3).',
    ]))
    expect(screen.getAllByTestId('copy-wikilink')).toHaveLength(1) // papers have none
    await fireEvent.click(await screen.findByTestId('open-obsidian'))
    await waitFor(() => expect(w.called('Shell.OpenInObsidian')[0]?.args).toEqual(['garden/tomatoes.md']))
  })

  it('opens a cited note in Jarvis\'s own viewer when Obsidian cannot take it', async () => {
    const w = open(
      {
        ...base,
        display: [
          { role: 'user', text: 'tomatoes?', at },
          { role: 'assistant', text: 'Full sun [source: garden/tomatoes.md].', at,
            citations: [{ source: 'garden/tomatoes.md', file_path: 'garden/tomatoes.md', chunk_id: 3, wikilink: '[[garden/tomatoes]]' }] },
        ],
      },
      {
        'Shell.Obsidian': () => true,
        'Shell.OpenInObsidian': () => {
          throw new Error('no obsidian:// handler')
        },
        'Library.ViewSource': () => ({ title: 'tomatoes', chunks: [{ id: 3, text: 'Tomatoes need full sun.' }], cited: 3 }),
      },
    )
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    await fireEvent.click(await screen.findByTestId('open-obsidian'))
    await waitFor(() => expect(w.called('Library.ViewSource')).toHaveLength(1))
    expect(w.called('Shell.OpenInObsidian')[0]?.args).toEqual(['garden/tomatoes.md'])
    expect((await screen.findByTestId('viewer')).textContent).toContain('Tomatoes need full sun.')
  })

  it('opens a cited Zotero item in Zotero at its annotation, and in its own viewer when Zotero cannot take it', async () => {
    const link = 'zotero://open-pdf/library/items/ATT12345?page=3&annotation=ANN12345'
    let zoteroWorks = true
    const w = open(
      {
        ...base,
        display: [
          { role: 'user', text: 'tomatoes?', at },
          { role: 'assistant', text: 'Full sun [source: zotero://select/library/items/ITEM1234, p.3].', at,
            citations: [{ source: 'zotero://select/library/items/ITEM1234', title: 'Sun and Fruit', page: 3, chunk_id: 7, link },
              { source: 'https://arxiv.org/abs/2401.01234', title: 'Other', page: 1 }] },
        ],
      },
      {
        'Shell.Zotero': () => true,
        'Shell.OpenInZotero': () => {
          if (!zoteroWorks) throw new Error('no handler')
          return null
        },
        'Library.ViewSource': () => ({ title: 'Sun and Fruit', chunks: [{ id: 7, text: 'Tomatoes need sun.' }], cited: 7 }),
      },
    )
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    const buttons = await screen.findAllByTestId('open-zotero')
    expect(buttons).toHaveLength(1) // only the Zotero item
    await fireEvent.click(buttons[0])
    await waitFor(() => expect(w.called('Shell.OpenInZotero')[0]?.args).toEqual([link]))
    expect(w.called('Library.ViewSource')).toHaveLength(0)
    zoteroWorks = false
    await fireEvent.click(buttons[0])
    await waitFor(() => expect(w.called('Library.ViewSource')).toHaveLength(1))
  })
})
