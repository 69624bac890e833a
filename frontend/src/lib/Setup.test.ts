import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte'
import { describe, expect, it } from 'vitest'
import App from '../App.svelte'
import { completeSetup, fakeBackend, freshSetup } from './fake'
import type { SessionView, SetupView } from './types'
import { resetBetweenTests } from './testreset'

const info = { version: '0.1.0', provider: 'ollama', model: 'qwen3-vl:30b', dataDir: '/tmp/j', warnings: [] as string[] }
const clone = <T,>(v: T): T => JSON.parse(JSON.stringify(v))

/** The window over a scriptable setup state; handlers may change it. */
function world(initial: SetupView, over: Record<string, (...a: any[]) => unknown> = {}) {
  const box = { state: clone(initial) }
  const fake = fakeBackend({
    'Shell.Info': () => info,
    'Chat.List': () => [],
    'Chat.Models': () => [],
    'Setup.State': () => clone(box.state),
    'Library.Ops': () => [],
    ...over,
  })
  return { ...fake, box }
}

/** The window opened on Settings over a setup state, the other settings
 * it loads answered empty; the world and its setup panel. */
async function inSettings(initial: SetupView, over: Record<string, (...a: any[]) => unknown> = {}) {
  const w = world(initial, {
    'Settings.ResponseStyle': () => '',
    'Settings.AutoContinue': () => 1,
    'Settings.Summary': () => [],
    'Settings.Prompts': () => [],
    'Settings.Models': () => [],
    ...over,
  })
  render(App, { props: { backend: w.backend } })
  await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }))
  const panel = await screen.findByTestId('setup')
  return { w, panel }
}

Element.prototype.scrollIntoView = function () {}

resetBetweenTests()

describe('the setup panel', () => {
  it('replaces the chat on a first launch and names the three missing pieces in plain words', async () => {
    const w = world(freshSetup)
    render(App, { props: { backend: w.backend } })
    const panel = await screen.findByTestId('setup')
    expect(screen.queryByText('Start a chat')?.closest('[hidden]')).toBeTruthy() // the chat view is hidden
    const vault = await within(panel).findByTestId('setup-vault')
    expect(vault.textContent).toContain('Choose the folder that holds your notes.')
    expect(within(vault).getByRole('button', { name: 'Choose folder…' })).toBeTruthy()
    const chat = within(panel).getByTestId('setup-chat')
    expect(within(chat).getByTestId('ollama-status').textContent).toBe('Ollama is not running at http://127.0.0.1:11434.')
    expect(chat.textContent).toContain('ollama serve')
    // The technical chain is behind "Details", not in the sentence.
    const details = chat.querySelector('details')!
    expect(details.open).toBe(false)
    expect(details.textContent).toContain('connection refused')
    expect(chat.querySelector('.line')?.textContent).not.toContain('dial tcp')
    expect(within(panel).getByRole('button', { name: 'Download search models (≈ 220 MB)' })).toBeTruthy()
    expect(within(panel).getByTestId('search-mode').textContent).toBe('keyword')
    expect((within(panel).getByRole('button', { name: 'Start using Jarvis' }) as HTMLButtonElement).disabled).toBe(true)
    // Every warning sign is drawn, not a glyph the font may lack.
    expect(panel.querySelectorAll('.sign svg path').length).toBeGreaterThanOrEqual(3)
    expect(panel.textContent).not.toContain('⚠')
  })

  it('takes the vault from the folder dialog, then offers its folders as private and exclusions', async () => {
    const w = world(freshSetup, {
      'Setup.ChooseFolder': () => '/home/ada/Notes',
      'Setup.SetVault': (path: string) => {
        w.box.state = { ...clone(completeSetup), vault: { path, exists: true, private_dirs: ['private'], exclude: [], folders: ['garden', 'journal'] } }
        return 'op-index'
      },
      'Setup.SetPrivateDirs': () => 'op-private',
      'Setup.SetExclude': () => 'op-exclude',
    })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByRole('button', { name: 'Choose folder…' }))
    await waitFor(() => expect(w.called('Setup.SetVault')[0]?.args).toEqual(['/home/ada/Notes']))
    w.emit('op', { op_id: 'op-index', kind: 'vault', title: 'Indexing the vault', seq: 2, stage: 'reading notes', done: 2, total: 3, state: 'running', started: '2026-01-01T00:00:01Z' })
    expect((await screen.findByTestId('op')).textContent).toContain('reading notes 2/3')
    w.emit('op', { op_id: 'op-index', kind: 'vault', title: 'Indexing the vault', seq: 3, stage: 'done', done: 3, total: 3, state: 'done', result: '3 added, 0 updated, 0 deleted, 0 warnings', started: '2026-01-01T00:00:01Z' })
    expect((await screen.findByTestId('vault-path')).textContent).toBe('/home/ada/Notes')
    await waitFor(() => expect(screen.getByTestId('op').textContent).toContain('3 added'))
    // "private" is configured but not in this vault: shown, marked, kept.
    expect(screen.getByLabelText(/private/).closest('label')?.textContent).toContain('not in this folder')
    const save = screen.getByRole('button', { name: 'Save private folders' }) as HTMLButtonElement
    expect(save.disabled).toBe(true)
    await fireEvent.click(screen.getByLabelText('journal'))
    await fireEvent.click(save)
    await waitFor(() => expect(w.called('Setup.SetPrivateDirs')[0]?.args).toEqual([['private', 'journal']]))
    await fireEvent.input(screen.getByLabelText('Never index'), { target: { value: 'templates, archive/* ,' } })
    await fireEvent.click(screen.getByRole('button', { name: 'Save exclusions' }))
    await waitFor(() => expect(w.called('Setup.SetExclude')[0]?.args).toEqual([['templates', 'archive/*']]))
    await fireEvent.click(screen.getByRole('button', { name: 'Start using Jarvis' }))
    expect(screen.getByTestId('setup').closest('[hidden]')).toBeTruthy()
    expect(localStorage.getItem('jarvis.setupDone')).toBe('true')
  })

  it('a cancelled dialog changes nothing; a typed folder works too', async () => {
    const w = world(freshSetup, { 'Setup.ChooseFolder': () => '', 'Setup.SetVault': () => 'op' })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByRole('button', { name: 'Choose folder…' }))
    await waitFor(() => expect(w.called('Setup.ChooseFolder')).toHaveLength(1))
    expect(w.called('Setup.SetVault')).toHaveLength(0)
    await fireEvent.input(screen.getByLabelText('Notes folder path'), { target: { value: ' /srv/notes ' } })
    await fireEvent.click(screen.getByRole('button', { name: 'Use this folder' }))
    await waitFor(() => expect(w.called('Setup.SetVault')[0]?.args).toEqual(['/srv/notes']))
  })

  it('offers the models Ollama has when it runs', async () => {
    const st = clone(freshSetup)
    st.ollama = { url: 'http://127.0.0.1:11434', running: true, models: ['llama3.2:latest', 'qwen3:8b'] }
    const w = world(st, { 'Setup.SetChat': () => null })
    render(App, { props: { backend: w.backend } })
    const select = (await screen.findByLabelText('Model', { selector: 'select' })) as HTMLSelectElement
    expect(Array.from(select.options).map((o) => o.value)).toEqual(['llama3.2:latest', 'qwen3:8b'])
    await fireEvent.change(select, { target: { value: 'qwen3:8b' } })
    await fireEvent.click(screen.getByRole('button', { name: 'Use this model' }))
    await waitFor(() => expect(w.called('Setup.SetChat')[0]?.args).toEqual(['ollama', 'qwen3:8b']))
    expect(await screen.findByText("New chats use Ollama's qwen3:8b.")).toBeTruthy()
    await waitFor(() => expect(w.called('Shell.Info')).toHaveLength(2)) // the header reads the new default
  })

  it('downloads a recommended model through Ollama with progress, then offers it', async () => {
    const st = clone(freshSetup)
    st.ollama = { url: 'http://127.0.0.1:11434', running: true, models: [] }
    const w = world(st, {
      'Setup.RecommendedModels': () => [
        { name: 'qwen3:4b', size: '2.5 GB', about: 'fast' },
        { name: 'llama3.2:3b', size: '2.0 GB', about: 'small' },
      ],
      'Setup.PullModel': () => 'op-pull',
    })
    render(App, { props: { backend: w.backend } })
    expect((await screen.findByTestId('ollama-status')).textContent).toContain('has no models yet. Download one below.')
    const rows = await screen.findAllByTestId('recommended-model')
    expect(rows.map((r) => r.textContent)).toEqual([expect.stringContaining('qwen3:4b 2.5 GB · fast'), expect.stringContaining('llama3.2:3b')])
    await fireEvent.click(within(rows[0]).getByRole('button', { name: 'Download' }))
    await waitFor(() => expect(w.called('Setup.PullModel')[0]?.args).toEqual(['qwen3:4b']))
    const t = '2026-01-01T00:00:0'
    w.emit('op', { op_id: 'op-pull', kind: 'ollama', title: 'Download qwen3:4b', seq: 2, stage: 'pulling 6a0746a1ec1a', done: 600, total: 2400, state: 'running', started: t + '1Z' })
    await waitFor(() => expect(screen.getByText(/Download qwen3:4b/)).toBeTruthy())
    expect(screen.getAllByRole('button', { name: 'Download' }).every((b) => (b as HTMLButtonElement).disabled)).toBe(true)
    w.box.state.ollama.models = ['qwen3:4b']
    w.emit('op', { op_id: 'op-pull', kind: 'ollama', title: 'Download qwen3:4b', seq: 3, stage: 'success', done: 2400, total: 2400, state: 'done', result: 'qwen3:4b is ready', started: t + '1Z' })
    const select = (await screen.findByLabelText('Model', { selector: 'select' })) as HTMLSelectElement
    expect(Array.from(select.options).map((o) => o.value)).toEqual(['qwen3:4b'])
    expect(screen.getAllByTestId('recommended-model').map((r) => r.textContent)).toEqual([expect.stringContaining('llama3.2:3b')])
  })

  it('takes an API key in a password field, sends it once and only ever shows "key set"', async () => {
    const key = 'sk-ant-api03-secret-value'
    const w = world(freshSetup, {
      'Setup.SetAPIKey': () => {
        w.box.state = { ...clone(w.box.state), keys: { anthropic: true, openrouter: false } }
        return null
      },
      'Setup.SetChat': () => null,
    })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Or use a cloud model (Anthropic, OpenRouter)'))
    const field = (await screen.findByLabelText('Anthropic API key')) as HTMLInputElement
    expect(field.type).toBe('password')
    expect((screen.getByLabelText('Model', { selector: '#model-anthropic' }) as HTMLInputElement).value).toBe('claude-sonnet-4-6')
    await fireEvent.input(field, { target: { value: key } })
    await fireEvent.click(screen.getByRole('button', { name: 'Use Anthropic' }))
    await waitFor(() => expect(w.called('Setup.SetChat')[0]?.args).toEqual(['anthropic', 'claude-sonnet-4-6']))
    expect(w.called('Setup.SetAPIKey')[0].args).toEqual(['anthropic', key])
    expect((await screen.findByTestId('key-set-anthropic')).textContent).toBe('key set')
    expect(field.value).toBe('')
    expect(document.body.innerHTML).not.toContain(key)
  })

  it('downloads the search models with progress, then shows the backfill and the new search mode', async () => {
    const w = world(freshSetup, { 'Settings.FetchModels': () => 'op-dl' })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByRole('button', { name: 'Download search models (≈ 220 MB)' }))
    expect(w.called('Settings.FetchModels')).toHaveLength(1)
    const t = '2026-01-01T00:00:0'
    w.emit('op', { op_id: 'op-dl', kind: 'models', title: 'Download search models', seq: 2, stage: 'BAAI/bge-small-en-v1.5: onnx/model.onnx 2048 KiB', done: 0, total: 2, state: 'running', started: t + '1Z' })
    const models = screen.getByTestId('setup-models')
    await waitFor(() => expect(within(models).getByTestId('op').textContent).toContain('2048 KiB'))
    expect((within(models).getByRole('button', { name: /Download search models/ }) as HTMLButtonElement).disabled).toBe(true)
    expect((await screen.findByTestId('activity')).textContent).toContain('Downloading search models')
    w.box.state = { ...clone(completeSetup), search: { mode: 'hybrid; 5 of 9 chunks still waiting for their vectors + rerank', chunks: 9, pending: 5 } }
    w.emit('op', { op_id: 'op-dl', kind: 'models', title: 'Download search models', seq: 3, stage: 'done', done: 2, total: 2, state: 'done', result: 'installed 2 model(s); your notes and papers are being embedded in the background', started: t + '1Z' })
    w.emit('op', { op_id: 'op-fill', kind: 'embed', title: 'Embedding for meaning-based search', seq: 2, stage: 'embedding 4 of 9 chunks', done: 4, total: 9, state: 'running', started: t + '2Z' })
    await waitFor(() => expect(within(models).getAllByTestId('op').map((o) => o.textContent).join(' ')).toContain('embedding 4 of 9 chunks 4/9'))
    expect(screen.getByTestId('activity').textContent).toBe('Embedding 4/9')
    expect((within(models).getByRole('progressbar', { name: /Embedding/ }) as HTMLProgressElement).value).toBe(4)
    w.emit('op', { op_id: 'op-fill', kind: 'embed', title: 'Embedding for meaning-based search', seq: 3, stage: 'done', done: 9, total: 9, state: 'done', result: '9 chunks embedded', started: t + '2Z' })
    w.emit('kb', { mode: 'hybrid (keyword + dense) + rerank', summary: 'hybrid (keyword + dense) + rerank', chunks: 9, pending: 0 })
    await waitFor(() => expect(screen.getByTestId('search-mode').textContent).toBe('hybrid (keyword + dense) + rerank'))
    expect(screen.queryByTestId('activity')).toBeNull()
    expect(screen.queryByRole('button', { name: /Download search models/ })).toBeNull()
  })

  it('stays out of the way when everything is set up, and after "Start using Jarvis" for the optional pieces', async () => {
    render(App, { props: { backend: world(completeSetup).backend } })
    expect(await screen.findByText('Start a chat')).toBeTruthy()
    expect(screen.queryByTestId('setup')).toBeNull()
    cleanup()
    localStorage.setItem('jarvis.setupDone', 'true')
    const noModel = { ...clone(completeSetup), complete: false, issues: { chat: freshSetup.issues!.chat } }
    render(App, { props: { backend: world(noModel).backend } })
    await screen.findByText('Start a chat')
    await new Promise((r) => setTimeout(r, 20))
    expect(screen.queryByTestId('setup')).toBeNull()
  })

  it('is part of Settings', async () => {
    const { panel } = await inSettings(completeSetup)
    expect(within(panel).getByTestId('vault-path').textContent).toBe('/home/ada/notes')
    expect(within(panel).getByTestId('chat-ready').textContent).toContain('ollama:qwen3-vl:30b')
    expect(within(panel).getByRole('button', { name: 'Choose another folder…' })).toBeTruthy()
  })

  it('keeps the tray syncing after login when asked, in Settings too', async () => {
    const { w, panel } = await inSettings({ ...completeSetup, autostart: 'on' }, {
      'Setup.SetAutostart': (on: boolean) => {
        w.box.state.autostart = on ? 'on' : 'off'
      },
    })
    const box = within(panel).getByRole('checkbox', { name: 'Keep Jarvis syncing in the background after I log in' }) as HTMLInputElement
    expect(box.checked).toBe(true)
    await fireEvent.click(box)
    await waitFor(() => expect(w.called('Setup.SetAutostart')[0]?.args).toEqual([false]))
    await waitFor(() => expect((within(panel).getByRole('checkbox', { name: /after I log in/ }) as HTMLInputElement).checked).toBe(false))
  })

  it('has no autostart toggle where the app cannot start at login', async () => {
    const { panel } = await inSettings({ ...completeSetup, autostart: 'unavailable' })
    expect(within(panel).getByTestId('vault-path')).toBeTruthy()
    expect(within(panel).queryByTestId('autostart')).toBeNull()
  })
})

describe('answers without a language model', () => {
  it('are labelled as search results and their citations open like any other', async () => {
    const view: SessionView = { id: 'a', title: 'Chat a', spec: 'ollama:qwen3-vl:30b', private: false, kbOnly: true, pinned: false, costUsd: 0, busy: false, display: [
      { role: 'user', text: 'how do I water tomatoes', at: '' },
      { role: 'assistant', offline: true, at: '', citations: [{ source: 'garden/tomatoes.md', title: 'tomatoes', file_path: 'garden/tomatoes.md' }],
        text: '**Search results — no language model connected.** The chat model could not be reached: ollama.chat: Post "http://127.0.0.1:1/api/chat": dial tcp 127.0.0.1:1: connect: connection refused.\n\n1. **Tomatoes** [source: garden/tomatoes.md]\n   > Tomato plants need full sun.\n\n_Found by keyword search._' },
    ] }
    const w = world(completeSetup, {
      'Chat.List': () => [{ id: 'a', title: 'Chat a', updated: '', pinned: false, private: false, spec: view.spec, busy: false }],
      'Chat.Open': () => view,
      'Library.ViewSource': () => ({ title: 'tomatoes', chunks: [{ id: 7, text: 'Tomato plants need full sun.' }], cited: 7 }),
    })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByText('Chat a'))
    const reply = await screen.findByTestId('message-assistant')
    expect(reply.classList.contains('offline')).toBe(true)
    const head = within(reply).getByTestId('offline')
    expect(head.textContent).toContain('Search results — no language model connected')
    expect(head.querySelector('details')?.open).toBe(false) // the reason, with its error chain, behind "Why"
    expect(reply.querySelector('.md')?.textContent).not.toContain('dial tcp')
    expect(reply.querySelector('.md')?.textContent).toContain('Found by keyword search')
    await fireEvent.click(within(reply).getByTestId('citation'))
    expect(w.called('Library.ViewSource')[0].args[0]).toMatchObject({ source: 'garden/tomatoes.md' })
    expect((await screen.findByTestId('viewer')).textContent).toContain('full sun')
  })
})

describe('problems', () => {
  it('show one sentence, the hint and the details behind a disclosure, once, with a drawn warning sign', async () => {
    const w = world(completeSetup, { 'Library.Documents': () => [], 'Library.Search': () => { throw { message: 'library.Search: kb.Search: open /x/rag/store.db: permission denied', code: 'rag', hint: 'check that the data folder is writable' } } })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(screen.getByRole('button', { name: 'Library' }))
    await fireEvent.input(await screen.findByLabelText('Search', { selector: 'input' }), { target: { value: 'x' } })
    for (let i = 0; i < 2; i++) await fireEvent.click(screen.getByRole('button', { name: 'Search' }))
    const alerts = await screen.findAllByRole('alert')
    expect(alerts).toHaveLength(1)
    expect(alerts[0].querySelector('.title')?.textContent).toBe('The knowledge base had a problem.')
    expect(alerts[0].querySelector('.line')?.textContent).toBe('check that the data folder is writable')
    expect(alerts[0].querySelector('details')?.textContent).toContain('permission denied')
    expect(alerts[0].querySelector('.sign svg path')?.getAttribute('d')).toBeTruthy()
  })
})

describe('the embedding model choice', () => {
  const e5 = 'intfloat/multilingual-e5-small'
  const mostlyChinese: SetupView = {
    ...freshSetup,
    embedding: {
      options: [
        { id: 'BAAI/bge-small-en-v1.5', multilingual: false, license: 'MIT', installed: true, chosen: true },
        { id: e5, multilingual: true, license: 'MIT', installed: false, chosen: false, note: 'For vaults not mostly in English.' },
      ],
      languages: [{ lang: 'zh', chunks: 240 }, { lang: 'en', chunks: 120 }, { lang: 'ru', chunks: 40 }],
      sampled: 400,
      suggest: e5,
      why: 'Much of your vault is not in English, and the English model finds it by keyword only: a multilingual model finds it by meaning too.',
      rerank_english_only: true,
    },
  }

  it('shows the vault’s languages, suggests the multilingual model and chooses it with one click', async () => {
    const w = world(mostlyChinese, {
      'Setup.SetEmbedModel': (id: string) => {
        for (const o of w.box.state.embedding!.options!) o.chosen = o.id === id
        w.box.state.embedding!.suggest = ''
      },
    })
    render(App, { props: { backend: w.backend } })
    const choice = await screen.findByTestId('embed-choice')
    expect(within(choice).getByTestId('vault-languages').textContent).toBe('Your vault: Chinese 60 %, English 30 %, Russian (Cyrillic) 10 %.')
    expect(within(choice).getByTestId('embed-suggest').textContent).toContain('not in English')
    expect(within(choice).getByTestId('rerank-english').textContent).toContain('ranks English only')
    const multi = within(choice).getByRole('radio', { name: new RegExp(e5) }) as HTMLInputElement
    expect(multi.closest('label')?.textContent).toContain('suggested')
    expect(multi.closest('label')?.textContent).toContain('not downloaded')
    expect(multi.checked).toBe(false)
    await fireEvent.click(multi)
    await waitFor(() => expect(w.called('Setup.SetEmbedModel').map((c) => c.args[0])).toEqual([e5]))
    await waitFor(() => expect(screen.queryByTestId('embed-suggest')).toBeNull())
    expect((within(screen.getByTestId('embed-choice')).getByRole('radio', { name: new RegExp(e5) }) as HTMLInputElement).checked).toBe(true)
  })

  it('suggests nothing for an English vault', async () => {
    const english: SetupView = { ...mostlyChinese, embedding: { ...mostlyChinese.embedding!, languages: [{ lang: 'en', chunks: 400 }], suggest: '', why: '', rerank_english_only: false } }
    render(App, { props: { backend: world(english).backend } })
    const choice = await screen.findByTestId('embed-choice')
    expect(within(choice).getByTestId('vault-languages').textContent).toBe('Your vault: English 100 %.')
    expect(within(choice).queryByTestId('embed-suggest')).toBeNull()
    expect(within(choice).queryByTestId('rerank-english')).toBeNull()
  })
})

describe('search results', () => {
  it('show the part of a hit where the question matched, the matches marked', async () => {
    const hit = {
      citation: { source: 'local', title: '快捷键', page: 0, chunkId: 4, filePath: 'zh/快捷键.md' },
      docType: 'note', private: false, section: '快捷键', score: 3.2,
      text: '很长的文字……在设置里打开快捷键页面。',
      excerpt: [{ text: '…' }, { text: '在' }, { text: '设置', match: true }, { text: '里打开' }, { text: '快捷键', match: true }, { text: '页面。' }],
    }
    const w = world(completeSetup, { 'Library.Documents': () => [], 'Library.Search': () => ({ hits: [hit], mode: 'keyword', detail: 'keyword' }) })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(screen.getByRole('button', { name: 'Library' }))
    await fireEvent.input(await screen.findByLabelText('Search', { selector: 'input' }), { target: { value: '怎样设置快捷键' } })
    await fireEvent.click(screen.getByRole('button', { name: 'Search' }))
    const excerpt = await screen.findByTestId('excerpt')
    expect(excerpt.textContent).toBe('…在设置里打开快捷键页面。')
    expect([...excerpt.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['设置', '快捷键'])
  })

  it('offers the Zotero library found at its usual place, reads it when chosen, and then names it', async () => {
    const w = world({ ...clone(freshSetup), zotero: { found: ['/home/ada/Zotero'] } }, {
      'Setup.SetZotero': (p: string) => {
        w.box.state.zotero = { dataDir: p, found: [] }
        return 'op-1'
      },
      'Setup.ZoteroCollections': () => [],
    })
    render(App, { props: { backend: w.backend } })
    const step = await screen.findByTestId('setup-zotero')
    expect(step.textContent).toContain('/home/ada/Zotero')
    await fireEvent.click(within(step).getByTestId('zotero-use'))
    await waitFor(() => expect(w.called('Setup.SetZotero')[0]?.args).toEqual(['/home/ada/Zotero']))
    await waitFor(() => expect(within(screen.getByTestId('setup-zotero')).getByTestId('zotero-path').textContent).toBe('/home/ada/Zotero'))
  })

  it('lists the Zotero collections and saves the ones marked private; those under a private one are private through it', async () => {
    let saved: string[] = ['Grants']
    const w = world({ ...clone(completeSetup), zotero: { dataDir: '/home/ada/Zotero', found: [] } }, {
      'Setup.ZoteroCollections': () => [
        { path: 'Grants', items: 3, private: saved.includes('Grants') },
        { path: 'Grants/2027', items: 2, private: saved.includes('Grants') },
        { path: 'Reading', items: 40, private: saved.includes('Reading') },
        { path: 'Reading/Old', items: 5, private: saved.includes('Reading') },
      ],
      'Setup.SetZoteroPrivate': (paths: string[]) => {
        saved = paths
        return 'op-2'
      },
    })
    render(App, { props: { backend: w.backend } })
    await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }))
    const box = await screen.findByTestId('zotero-private')
    const check = (name: RegExp) => within(box).getByLabelText(name) as HTMLInputElement
    expect(check(/^Grants/).checked).toBe(true)
    expect(check(/^2027/).checked && check(/^2027/).disabled).toBe(true) // through Grants
    expect(check(/^2027/).closest('label')?.textContent).toContain('private through its parent')
    expect(check(/^Reading/).checked).toBe(false)
    const save = within(box).getByRole('button', { name: 'Save private collections' }) as HTMLButtonElement
    expect(save.disabled).toBe(true)
    await fireEvent.click(check(/^Reading/))
    expect(check(/^Old/).checked && check(/^Old/).disabled).toBe(true)
    await fireEvent.click(check(/^Grants/))
    expect(check(/^2027/).disabled).toBe(false)
    await fireEvent.click(save)
    await waitFor(() => expect(w.called('Setup.SetZoteroPrivate')[0]?.args).toEqual([['Reading']]))
    await waitFor(() => expect(check(/^Old/).closest('label')?.textContent).toContain('private through its parent'))
    expect(check(/^Grants/).checked).toBe(false)
  })
})
