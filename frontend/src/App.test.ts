import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import App from './App.svelte'
import { createBackend } from './lib/backend'
import { fakeBackend } from './lib/fake'
import { changed } from './lib/review'
import type { SessionView } from './lib/types'

const info = { version: '0.1.0', provider: 'ollama', model: 'qwen3-vl:30b', dataDir: '/tmp/j', warnings: [] as string[] }

function session(id: string, over: Partial<SessionView> = {}): SessionView {
  return { id, title: 'Chat ' + id, spec: 'ollama:qwen3-vl:30b', private: false, kbOnly: true, pinned: false, costUsd: 0, busy: false, display: [], ...over }
}

function world(over: Record<string, (...a: any[]) => unknown> = {}) {
  const views: Record<string, SessionView> = { a: session('a'), b: session('b') }
  const fake = fakeBackend({
    'Shell.Info': () => info,
    'Chat.List': () => Object.values(views).map((v) => ({ id: v.id, title: v.title, updated: '', pinned: v.pinned, private: v.private, spec: v.spec, busy: false })),
    'Chat.Models': () => [{ spec: 'ollama:qwen3-vl:30b', provider: 'ollama', model: 'qwen3-vl:30b', local: true, available: true, current: true }],
    'Chat.Open': (id: string) => views[id],
    'Chat.New': () => views.a,
    'Chat.Send': () => null,
    'Chat.Stop': () => true,
    'Chat.Confirm': () => null,
    'Library.OpenCitation': () => null,
    'Library.ViewSource': () => ({ title: 'tomatoes', html: '<p>Tomato plants need full sun.</p>' }),
    ...over,
  })
  return { ...fake, views }
}

beforeEach(() => localStorage.clear())
afterEach(() => cleanup())

describe('App shell', () => {
  it('renders the header with the configured model and the session list', async () => {
    render(App, { props: { backend: world().backend } })
    expect(screen.getByRole('heading', { name: 'Jarvis' })).toBeTruthy()
    await waitFor(() => expect((screen.getByLabelText('Model') as HTMLInputElement).value).toBe('ollama:qwen3-vl:30b'))
    expect(await screen.findByText('Chat a')).toBeTruthy()
  })

  it('shows start-up warnings', async () => {
    const w = world({ 'Shell.Info': () => ({ ...info, warnings: ['config.toml is readable by other users'] }) })
    render(App, { props: { backend: w.backend } })
    expect(await screen.findByText(/readable by other users/)).toBeTruthy()
  })

  it('explains a missing backend instead of failing silently', async () => {
    render(App, { props: { backend: createBackend({ go: { app: {} } } as any) } })
    expect((await screen.findByRole('alert')).textContent).toContain('not bound')
  })
})

describe('a turn', () => {
  it('streams tool events in order, asks before deleting, and shows cited replies', async () => {
    const w = world()
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    const box = (await screen.findByLabelText('Message')) as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: 'water the tomatoes?' } })
    await fireEvent.click(screen.getByText('Send'))
    expect(w.called('Chat.Send')[0].args).toEqual(['a', 'water the tomatoes?'])
    w.emit('chat', { session_id: 'a', seq: 1, kind: 'status', text: 'thinking' })
    w.emit('chat', { session_id: 'a', seq: 2, kind: 'delta', text: 'Let me ' })
    w.emit('chat', { session_id: 'a', seq: 3, kind: 'delta', text: 'look.' })
    expect((await screen.findByTestId('live')).textContent).toBe('Let me look.')
    w.emit('chat', { session_id: 'a', seq: 4, kind: 'tool', text: 'searched "tomatoes": 3 results' })
    w.emit('chat', { session_id: 'a', seq: 4, kind: 'tool', text: 'duplicate must be ignored' })
    w.emit('chat', { session_id: 'b', seq: 5, kind: 'tool', text: 'other session' })
    w.emit('chat', { session_id: 'a', seq: 5, kind: 'confirm', text: 'Remove garden/roses.md (1 chunks)? Database entry only — files on disk are never touched.', data: { token: 't1' } })
    expect(await screen.findByText('Thinking…')).toBeTruthy()
    expect(screen.getByTestId('tools').textContent).toContain('3 results')
    expect(screen.queryByTestId('live')).toBeNull() // preamble before a tool call is dropped
    expect(screen.queryByText('duplicate must be ignored')).toBeNull()
    expect(screen.queryByText('other session')).toBeNull()
    expect(screen.getByTestId('confirm').textContent).toContain('never touched')
    await fireEvent.click(screen.getByText('Remove'))
    expect(w.called('Chat.Confirm')[0].args).toEqual(['t1', true])
    expect(screen.queryByTestId('confirm')).toBeNull()

    w.views.a = session('a', { display: [
      { role: 'user', text: 'water the tomatoes?', at: '' },
      { role: 'assistant', text: 'Deeply [source: garden/tomatoes.md].', at: '', citations: [{ source: 'garden/tomatoes.md', title: 'tomatoes', file_path: 'garden/tomatoes.md' }] },
    ] })
    w.emit('chat', { session_id: 'a', seq: 6, kind: 'reply', text: 'Deeply', data: {} })
    const cite = await screen.findByTestId('citation')
    expect(cite.textContent).toBe('tomatoes')
    await fireEvent.click(cite)
    expect(w.called('Library.ViewSource')[0].args[0]).toMatchObject({ source: 'garden/tomatoes.md' })
    expect((await screen.findByTestId('viewer')).textContent).toContain('full sun')
    await fireEvent.click(screen.getByText('Open in default app'))
    expect(w.called('Library.OpenCitation')[0].args[0]).toMatchObject({ source: 'garden/tomatoes.md' })
    expect(screen.queryByText('Stop')).toBeNull()
  })

  it('Stop returns the composer at once with the question, and input drafts are per session', async () => {
    const w = world()
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    const box = (await screen.findByLabelText('Message')) as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: 'a long question' } })
    await fireEvent.click(screen.getByText('Send'))
    await fireEvent.click(await screen.findByText('Stop'))
    expect(w.called('Chat.Stop')[0].args).toEqual(['a'])
    expect(((await screen.findByLabelText('Message')) as HTMLTextAreaElement).value).toBe('a long question')
    // A late event from the stopped turn changes nothing.
    w.emit('chat', { session_id: 'a', seq: 9, kind: 'reply', text: 'too late' })
    expect(screen.queryByText('too late')).toBeNull()

    await fireEvent.click(screen.getByText('Chat b'))
    const boxB = (await screen.findByLabelText('Message')) as HTMLTextAreaElement
    await waitFor(() => expect(boxB.value).toBe(''))
    await fireEvent.input(boxB, { target: { value: 'draft for b' } })
    await fireEvent.click(screen.getByText('Chat a'))
    await waitFor(() => expect((screen.getByLabelText('Message') as HTMLTextAreaElement).value).toBe('a long question'))
    expect(JSON.parse(localStorage.getItem('jarvis.inputDrafts')!).b).toBe('draft for b')
  })
})

describe('a reopened window', () => {
  it('rebuilds a running turn from the replay, pending confirmation included', async () => {
    const w = world({
      'Chat.Replay': () => ({ question: 'remove roses', events: [
        { session_id: 'a', seq: 1, kind: 'status', text: 'thinking' },
        { session_id: 'a', seq: 2, kind: 'confirm', text: 'Remove garden/roses.md? Database entry only — files on disk are never touched.', data: { token: 'tok' } },
      ] }),
    })
    w.views.a = session('a', { busy: true })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    expect((await screen.findByTestId('confirm')).textContent).toContain('never touched')
    expect(screen.getByText('remove roses')).toBeTruthy()
    w.emit('chat', { session_id: 'a', seq: 2, kind: 'tool', text: 'replayed twice must be ignored' })
    expect(screen.queryByText('replayed twice must be ignored')).toBeNull()
    await fireEvent.click(screen.getByText('Keep'))
    expect(w.called('Chat.Confirm')[0].args).toEqual(['tok', false])
  })
})

describe('library and settings', () => {
  it('removes a document only after the second click', async () => {
    const w = world({
      'Library.Documents': () => [{ key: 'garden/roses.md', doc_type: 'note', visibility: 'public', title: 'roses', chunks: 1 }],
      'Library.PrepareRemove': () => ({ token: 'r1', key: 'garden/roses.md', title: 'roses', chunks: 1, notice: 'Database entry only — files on disk are never touched' }),
      'Library.Remove': () => 1,
    })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(screen.getByText('Library'))
    await fireEvent.click(await screen.findByText('Remove'))
    expect(w.called('Library.Remove')).toHaveLength(0)
    expect((await screen.findByTestId('remove-dialog')).textContent).toContain('never touched')
    await fireEvent.click(screen.getByText('Remove from the knowledge base'))
    await waitFor(() => expect(w.called('Library.Remove')[0].args).toEqual(['r1']))
    expect(await screen.findByText('Removed 1 chunks.')).toBeTruthy()
  })

  it('reverts a prompt to its default', async () => {
    const w = world({
      'Settings.ResponseStyle': () => 'Be brief.',
      'Settings.Summary': () => ['provider: ollama'],
      'Settings.Prompts': () => [{ name: 'system_prompt', text: 'edited text', modified: true }],
      'Settings.ResetPrompt': () => 'the default text',
      'Settings.Models': () => [{ id: 'BAAI/bge-small-en-v1.5', role: 'embed', license: 'MIT', configured: true, installed: false, missing: 5 }],
      'Settings.FetchModels': () => 'op1',
    })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(screen.getByText('Settings'))
    const area = (await screen.findByLabelText('Prompt text')) as HTMLTextAreaElement
    await waitFor(() => expect(area.value).toBe('edited text'))
    await fireEvent.click(screen.getByText('Revert to default'))
    await waitFor(() => expect(area.value).toBe('the default text'))
    expect(screen.getByTestId('model-row').textContent).toContain('missing (5 files)')
    await fireEvent.click(screen.getByText('Download the models (Hugging Face)'))
    w.emit('op', { op_id: 'op1', kind: 'models', title: 'Download models', seq: 2, stage: 'BAAI/bge-small-en-v1.5: onnx/model.onnx 1024 KiB', done: 0, total: 2, state: 'running' })
    expect((await screen.findByTestId('download')).textContent).toContain('1024 KiB')
  })
})

describe('review helpers', () => {
  it('expands hunk spans into changed line numbers', () => {
    expect(changed([[0, 2], [4, 5]])).toEqual([0, 1, 4])
    expect(changed(null)).toEqual([])
  })
})
