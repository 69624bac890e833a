import { fireEvent, render, screen, waitFor } from '@testing-library/svelte'
import { describe, expect, it } from 'vitest'
import App from './App.svelte'
import { createBackend } from './lib/backend'
import { completeSetup, fakeBackend } from './lib/fake'
import { changed, unified } from './lib/review'
import { groupSessions } from './lib/Sidebar.svelte'
import { notices, plain } from './lib/notices.svelte'
import type { SessionView } from './lib/types'
import { resetBetweenTests } from './lib/testreset'

const info = { version: '0.1.0', provider: 'ollama', model: 'qwen3-vl:30b', dataDir: '/tmp/j', warnings: [] as string[] }

function session(id: string, over: Partial<SessionView> = {}): SessionView {
  return { id, title: 'Chat ' + id, spec: 'ollama:qwen3-vl:30b', private: false, kbOnly: true, pinned: false, costUsd: 0, busy: false, display: [], ...over }
}

function world(over: Record<string, (...a: any[]) => unknown> = {}) {
  const views: Record<string, SessionView> = { a: session('a'), b: session('b') }
  const fake = fakeBackend({
    'Shell.Info': () => info,
    'Setup.State': () => completeSetup,
    'Chat.List': () => Object.values(views).map((v) => ({ id: v.id, title: v.title, updated: '', pinned: v.pinned, private: v.private, spec: v.spec, busy: false })),
    'Chat.Models': () => [{ spec: 'ollama:qwen3-vl:30b', provider: 'ollama', model: 'qwen3-vl:30b', local: true, available: true, current: true }],
    'Chat.Open': (id: string) => views[id],
    'Chat.New': () => views.a,
    'Chat.Send': () => null,
    'Chat.Stop': () => true,
    'Chat.Confirm': () => null,
    'Library.OpenCitation': () => null,
    'Library.ViewSource': () => ({ title: 'tomatoes', chunks: [{ id: 1, text: '# Tomatoes' }, { id: 7, text: 'Tomato plants need **full sun**.' }], cited: 7 }),
    ...over,
  })
  return { ...fake, views }
}

// jsdom does no layout.
Element.prototype.scrollIntoView = function () {}

resetBetweenTests()

/** Renders the window over w, opens chat a and returns its message box. */
async function openChat(w: ReturnType<typeof world>) {
  render(App, { props: { backend: w.backend } })
  await fireEvent.click(await screen.findByText('Chat a'))
  return (await screen.findByLabelText('Message')) as HTMLTextAreaElement
}

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
    await waitFor(() => expect(screen.getAllByRole('alert').map((a) => a.textContent).join(' ')).toContain('Shell.Info is not bound'))
  })
})

describe('a turn', () => {
  it('streams tool events in order, asks before deleting, and shows cited replies', async () => {
    const w = world()
    const box = await openChat(w)
    await fireEvent.input(box, { target: { value: 'water the tomatoes?' } })
    await fireEvent.click(screen.getByText('Send'))
    expect(w.called('Chat.Send')[0].args).toEqual(['a', 'water the tomatoes?'])
    w.emit('chat', { session_id: 'a', seq: 1, kind: 'status', text: 'thinking' })
    w.emit('chat', { session_id: 'a', seq: 2, kind: 'delta', text: 'Let me ' })
    w.emit('chat', { session_id: 'a', seq: 3, kind: 'delta', text: 'look.' })
    await waitFor(() => expect(screen.getByTestId('live').textContent?.trim()).toBe('Let me look.'))
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
    expect(cite.textContent).toBe('1tomatoes')
    const reply = screen.getByTestId('message-assistant')
    expect(reply.textContent).not.toContain('[source:') // the marker became reference 1
    expect(reply.querySelector('sup.ref button')?.textContent).toBe('1')
    await fireEvent.click(cite)
    expect(w.called('Library.ViewSource')[0].args[0]).toMatchObject({ source: 'garden/tomatoes.md' })
    expect((await screen.findByTestId('viewer')).textContent).toContain('full sun')
    expect(screen.getByTestId('cited').textContent).toContain('full sun') // the cited chunk is marked
    await fireEvent.click(screen.getByText('Open in default app'))
    expect(w.called('Library.OpenCitation')[0].args[0]).toMatchObject({ source: 'garden/tomatoes.md' })
    expect(screen.queryByText('Stop')).toBeNull()
  })

  it('Stop returns the composer at once with the question, and input drafts are per session', async () => {
    const w = world()
    const box = await openChat(w)
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
    await waitFor(() => expect(w.called('Library.Remove')[0].args).toEqual(['r1', false]))
    expect(await screen.findByText('Removed 1 chunks.')).toBeTruthy()
  })

  it('reverts a prompt to its default', async () => {
    const w = world({
      'Settings.ResponseStyle': () => 'Be brief.',
      'Settings.AutoContinue': () => 1,
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
  })
})

describe('review helpers', () => {
  it('expands hunk spans into changed line numbers', () => {
    expect(changed([[0, 2], [4, 5]])).toEqual([0, 1, 4])
    expect(changed(null)).toEqual([])
  })

  it('lays a hunk out as unified diff lines', () => {
    const h = { index: 0, kind: 'replace' as const, old_start: 0, old_end: 3, new_start: 0, new_end: 3,
      old_lines: ['a\n', 'old\n', 'c\n'], new_lines: ['a\n', 'new\n', 'c\n'], old_spans: [[1, 2]] as [number, number][], new_spans: [[1, 2]] as [number, number][] }
    expect(unified(h).map((l) => l.kind + l.text)).toEqual([' a', '-old', '+new', ' c'])
  })
})

describe('the window as a daily tool', () => {
  it('Enter sends, Shift+Enter does not, and a double-click on Send does not stop the answer', async () => {
    const w = world()
    const box = await openChat(w)
    await fireEvent.input(box, { target: { value: 'line one' } })
    await fireEvent.keyDown(box, { key: 'Enter', shiftKey: true })
    expect(w.called('Chat.Send')).toHaveLength(0)
    await fireEvent.keyDown(box, { key: 'Enter' })
    expect(w.called('Chat.Send')[0].args).toEqual(['a', 'line one'])
    // The same button now says Stop; the second click of the double-click lands on it.
    await fireEvent.click(await screen.findByRole('button', { name: 'Stop' }), { detail: 2 })
    expect(w.called('Chat.Stop')).toHaveLength(0)
    expect(screen.getByTestId('turn')).toBeTruthy()
  })

  it('opens links through the runtime and keeps the page where it is', async () => {
    const w = world()
    w.views.a = session('a', { display: [{ role: 'assistant', text: 'See the [Wails handbook](https://wails.io/docs).', at: '' }] })
    await openChat(w)
    const link = (await screen.findByText('Wails handbook')) as HTMLAnchorElement
    expect(link.title).toBe('https://wails.io/docs')
    const click = new MouseEvent('click', { bubbles: true, cancelable: true })
    link.dispatchEvent(click)
    expect(click.defaultPrevented).toBe(true)
    await waitFor(() => expect(w.called('runtime.BrowserOpenURL')[0]?.args).toEqual(['https://wails.io/docs']))
  })

  it('Esc closes the source viewer and gives focus back', async () => {
    const w = world()
    w.views.a = session('a', { display: [{ role: 'assistant', text: 'Deeply [source: garden/tomatoes.md].', at: '', citations: [{ source: 'garden/tomatoes.md', title: 'tomatoes' }] }] })
    await openChat(w)
    const chip = await screen.findByTestId('citation')
    chip.focus()
    await fireEvent.click(chip)
    await screen.findByTestId('viewer')
    await waitFor(() => expect(screen.getByTestId('viewer').contains(document.activeElement)).toBe(true))
    await fireEvent.keyDown(window, { key: 'Escape' })
    await waitFor(() => expect(screen.queryByTestId('viewer')).toBeNull())
    expect(document.activeElement).toBe(chip)
  })

  it('Ctrl+K jumps to a session by name; Ctrl+N starts a chat', async () => {
    const w = world()
    render(App, { props: { backend: w.backend } })
    await screen.findByText('Chat b')
    await fireEvent.keyDown(window, { key: 'k', ctrlKey: true })
    const input = await screen.findByLabelText('Name to jump to')
    await fireEvent.input(input, { target: { value: 'chat b' } })
    await fireEvent.keyDown(input, { key: 'Enter' })
    await waitFor(() => expect(w.called('Chat.Open').at(-1)?.args).toEqual(['b']))
    expect(screen.queryByTestId('quick-switch')).toBeNull()
    await fireEvent.keyDown(window, { key: 'n', ctrlKey: true })
    await waitFor(() => expect(w.called('Chat.New')).toHaveLength(1))
  })

  it('the session list filters by name and groups by day', async () => {
    const w = world()
    render(App, { props: { backend: w.backend } })
    await screen.findByText('Chat b')
    await fireEvent.input(screen.getByLabelText('Search sessions'), { target: { value: 'chat a' } })
    await waitFor(() => expect(screen.queryByText('Chat b')).toBeNull())
    expect(screen.getByText('Chat a')).toBeTruthy()
    const now = new Date('2026-05-10T15:00:00')
    const row = (id: string, updated: string, pinned = false) => ({ id, title: id, updated, pinned, private: false, spec: '', busy: false })
    const groups = groupSessions([row('old', '2026-01-01T10:00:00'), row('today', '2026-05-10T09:00:00'), row('pin', '2025-01-01T00:00:00', true), row('yday', '2026-05-09T20:00:00'), row('week', '2026-05-06T08:00:00')], now)
    expect(groups.map((g) => `${g.label}:${g.rows.map((r) => r.id).join(',')}`)).toEqual(['Pinned:pin', 'Today:today', 'Yesterday:yday', 'Previous 7 days:week', 'Older:old'])
  })

  it('a removed vault note can be excluded from the index', async () => {
    const w = world({
      'Library.Documents': () => [{ key: 'garden/roses.md', source: 'local', file_path: 'garden/roses.md', doc_type: 'note', visibility: 'public', title: 'roses', chunks: 1 }],
      'Library.PrepareRemove': () => ({ token: 'r2', key: 'garden/roses.md', title: 'roses', chunks: 1, notice: 'Database entry only', exclude: 'garden/roses.md' }),
      'Library.Remove': () => 1,
    })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(screen.getByRole('button', { name: 'Library' }))
    await fireEvent.click(await screen.findByText('Remove'))
    expect(((await screen.findByTestId('exclude')) as HTMLInputElement).checked).toBe(true)
    await fireEvent.click(screen.getByText('Remove from the knowledge base'))
    await waitFor(() => expect(w.called('Library.Remove')[0].args).toEqual(['r2', true]))
    expect(await screen.findByText(/excluded from the index/)).toBeTruthy()
  })

  it('an edited prompt survives switching prompts and views until it is saved', async () => {
    const w = world({
      'Settings.ResponseStyle': () => '',
      'Settings.AutoContinue': () => 1,
      'Settings.Summary': () => [],
      'Settings.Prompts': () => [{ name: 'system_prompt', text: 'system', modified: false }, { name: 'summary', text: 'summary text', modified: false }],
      'Settings.SavePrompt': () => null,
      'Settings.Models': () => [],
    })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(screen.getByRole('button', { name: 'Settings' }))
    const area = (await screen.findByLabelText('Prompt text')) as HTMLTextAreaElement
    await waitFor(() => expect(area.value).toBe('system'))
    await fireEvent.input(area, { target: { value: 'system, my way' } })
    await fireEvent.click(screen.getByRole('button', { name: /^summary/ }))
    await waitFor(() => expect(area.value).toBe('summary text'))
    await fireEvent.click(screen.getByRole('button', { name: 'Chat' }))
    await fireEvent.click(screen.getByRole('button', { name: 'Settings' }))
    await fireEvent.click(screen.getByRole('button', { name: /^system_prompt/ }))
    await waitFor(() => expect(area.value).toBe('system, my way'))
    expect(JSON.parse(localStorage.getItem('jarvis.settingsEdits')!).system_prompt).toBe('system, my way')
    await fireEvent.click(screen.getByText('Save prompt'))
    await waitFor(() => expect(w.called('Settings.SavePrompt')[0].args).toEqual(['system_prompt', 'system, my way']))
  })

  it('names each prompt by its title and says what it is for', async () => {
    const w = world({
      'Settings.ResponseStyle': () => '',
      'Settings.AutoContinue': () => 1,
      'Settings.Summary': () => [],
      'Settings.Prompts': () => [
        { name: 'system_prompt', title: 'Assistant instructions', description: 'Sent at the start of every chat.', text: 'system', modified: false },
        { name: 'digest_scoring', title: 'Digest scoring', description: 'Rates new papers for the digest.', text: 'score', modified: true },
      ],
      'Settings.Models': () => [],
    })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(screen.getByRole('button', { name: 'Settings' }))
    expect(await screen.findByText(/Sent at the start of every chat\./)).toBeTruthy()
    expect(screen.getByText('prompts/system_prompt.md')).toBeTruthy()
    await fireEvent.click(screen.getByRole('button', { name: 'Digest scoring (edited)' }))
    expect(await screen.findByText(/Rates new papers for the digest\./)).toBeTruthy()
    expect(screen.queryByText(/Sent at the start of every chat/)).toBeNull()
  })

  it('shows one failure once, in plain words with its hint', async () => {
    notices.report({ message: 'chat.Start: this session is already answering', code: 'conflict', hint: '' })
    notices.report(new Error('chat.Start: this session is already answering'))
    expect(notices.list).toHaveLength(1)
    expect(notices.list[0].title).toBe('Something changed in the meantime.')
    expect(plain('⚠️ llm: ollama: dial tcp 127.0.0.1:1: connect: connection refused')).toBe('Dial tcp 127.0.0.1:1: connect: connection refused')
  })
})
