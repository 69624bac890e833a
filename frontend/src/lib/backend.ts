// The one seam between the UI and Go. In the desktop app Wails injects
// window.go.app.<Service>.<Method> and window.runtime.EventsOn; in a plain
// browser (end-to-end tests) the same calls go to the test bridge over HTTP
// and events arrive as server-sent events. Components only see Backend.
import type * as T from './types'

export type { AppInfo } from './types'

/** A failed backend call, with the stable error code and hint when known. */
export class BackendError extends Error {
  code: string
  hint: string
  constructor(message: string, code = '', hint = '') {
    super(message)
    this.code = code
    this.hint = hint
  }
}

export interface Transport {
  call(service: string, method: string, ...args: unknown[]): Promise<unknown>
  on(event: string, cb: (data: unknown) => void): () => void
  /** A Wails runtime function the window calls directly (BrowserOpenURL,
   * ClipboardSetText); the test bridge records them. */
  runtime(name: string, ...args: unknown[]): Promise<void>
}

type WailsWindow = Window & {
  go?: { app?: Record<string, Record<string, (...a: unknown[]) => Promise<unknown>>> }
  runtime?: Record<string, (...a: any[]) => any> & { EventsOn?(name: string, cb: (d: unknown) => void): () => void }
}

/** A failed Wails call: the app's error formatter sends {message, code,
 * hint}; anything else is taken as the message. */
export function toBackendError(e: unknown): BackendError {
  if (e instanceof BackendError) return e
  if (e && typeof e === 'object' && 'message' in e) {
    const o = e as { message: unknown; code?: unknown; hint?: unknown }
    return new BackendError(String(o.message), String(o.code ?? ''), String(o.hint ?? ''))
  }
  return new BackendError(String(e))
}

export function wailsTransport(w: WailsWindow): Transport {
  return {
    async call(service, method, ...args) {
      const fn = w.go?.app?.[service]?.[method]
      if (!fn) throw new BackendError(`backend method ${service}.${method} is not bound`)
      try {
        return await fn(...args)
      } catch (e) {
        throw toBackendError(e)
      }
    },
    on(event, cb) {
      return w.runtime?.EventsOn?.(event, cb) ?? (() => {})
    },
    async runtime(name, ...args) {
      const fn = w.runtime?.[name]
      if (!fn) throw new BackendError(`the window runtime has no ${name}`)
      await fn(...args)
    },
  }
}

export function bridgeTransport(base = ''): Transport {
  const listeners = new Map<string, Set<(d: unknown) => void>>()
  let source: EventSource | null = null
  const connect = () => {
    if (source || typeof EventSource === 'undefined') return
    source = new EventSource(base + '/bridge/events')
    source.onmessage = (m) => {
      const { name, data } = JSON.parse(m.data)
      listeners.get(name)?.forEach((cb) => cb(data))
    }
  }
  return {
    async call(service, method, ...args) {
      const res = await fetch(base + '/bridge/call', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ service, method, args }),
      })
      const body = await res.json()
      if (!res.ok) throw new BackendError(body.message, body.code, body.hint)
      return body.result
    },
    on(event, cb) {
      connect()
      if (!listeners.has(event)) listeners.set(event, new Set())
      listeners.get(event)!.add(cb)
      return () => listeners.get(event)?.delete(cb)
    },
    async runtime(name, ...args) {
      const res = await fetch(base + '/bridge/runtime', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, args }),
      })
      if (!res.ok) throw new BackendError(`runtime ${name} failed`)
    },
  }
}

/** The typed surface the components use. */
export interface Backend {
  appInfo(): Promise<T.AppInfo>
  onChat(cb: (e: T.ChatEvent) => void): () => void
  sessions(): Promise<T.SessionRow[]>
  newSession(spec: string, kbOnly: boolean): Promise<T.SessionView>
  openSession(id: string): Promise<T.SessionView>
  send(id: string, message: string): Promise<void>
  continueReply(id: string): Promise<void>
  replay(id: string): Promise<T.TurnInFlight | null>
  stop(id: string): Promise<boolean>
  confirm(token: string, yes: boolean): Promise<void>
  review(token: string, send: boolean, withhold: number[]): Promise<void>
  setAskBeforeSending(id: string, on: boolean): Promise<T.SessionView>
  askBeforeSendingDefault(): Promise<boolean>
  setAskBeforeSendingDefault(on: boolean): Promise<void>
  rename(id: string, title: string): Promise<T.SessionView>
  setPinned(id: string, pinned: boolean): Promise<T.SessionView>
  setModel(id: string, spec: string): Promise<T.SessionView>
  setKBOnly(id: string, on: boolean): Promise<T.SessionView>
  deleteSession(id: string): Promise<void>
  models(current: string): Promise<T.CatalogueEntry[]>
  documents(kind: string, filter: string): Promise<T.DocumentSummary[]>
  search(query: string, n: number): Promise<T.SearchView>
  searchStatus(): Promise<T.SearchStatus>
  /** The knowledge base's contents or search mode changed. */
  onKB(cb: (s: T.SearchStatus) => void): () => void
  stats(): Promise<T.Counts>
  setMeta(source: string, title: string, authors: string, doi: string): Promise<number>
  prepareRemove(key: string): Promise<T.RemovalPreview>
  remove(token: string, exclude: boolean): Promise<number>
  /** Adds a file as an operation; password opens an encrypted PDF (asked for after a "locked" failure, never stored). */
  addFile(path: string, fullText: boolean, privateNote: boolean, password?: string): Promise<string>
  pickFiles(): Promise<string[]>
  syncVault(): Promise<string>
  cancelOp(id: string): Promise<boolean>
  recommendedModels(): Promise<T.RecommendedModel[]>
  /** Downloads a model through Ollama as an operation; returns its id. */
  pullModel(name: string): Promise<string>
  retryOp(id: string): Promise<string>
  ops(): Promise<T.Op[]>
  onOp(cb: (o: T.Op) => void): () => void
  openCitation(c: T.Citation): Promise<void>
  viewSource(c: T.Citation, page: number): Promise<T.SourceView>
  revealCitation(c: T.Citation): Promise<void>
  /** Whether vault notes can open in Obsidian on this desktop. */
  obsidian(): Promise<boolean>
  zotero(): Promise<boolean>
  openInZotero(link: string): Promise<void>
  openInObsidian(rel: string): Promise<void>
  configSummary(): Promise<string[]>
  /** Whether scans and images can be read (Tesseract), in which languages, and how to add one. */
  ocr(): Promise<T.OCRView>
  responseStyle(): Promise<string>
  setResponseStyle(s: string): Promise<void>
  /** [chat] auto_continue: how many times a task at the tool-call limit goes on by itself (0-3). */
  autoContinue(): Promise<number>
  setAutoContinue(n: number): Promise<void>
  prompts(): Promise<T.Prompt[]>
  memory(): Promise<T.MemoryFact[]>
  addMemory(text: string, priv: boolean): Promise<T.MemoryFact>
  updateMemory(id: string, text: string, priv: boolean): Promise<T.MemoryFact>
  deleteMemory(id: string): Promise<void>
  mcp(): Promise<T.McpOverview>
  setMcpAllowPrivate(on: boolean): Promise<void>
  ledger(f: T.LedgerFilter): Promise<T.LedgerRecord[]>
  savePrompt(name: string, text: string): Promise<void>
  resetPrompt(name: string): Promise<string>
  models_(): Promise<T.ModelRow[]>
  fetchModels(): Promise<string>
  setupState(): Promise<T.SetupView>
  /** The desktop's folder dialog; '' when cancelled. */
  chooseFolder(): Promise<string>
  /** Each returns the id of the indexing operation that follows. */
  setVault(path: string): Promise<string>
  setZotero(path: string): Promise<string>
  syncZotero(): Promise<string>
  zoteroCollections(): Promise<T.ZoteroCollection[]>
  /** Replaces the private collections; returns the id of the sync that follows. */
  setZoteroPrivate(paths: string[]): Promise<string>
  setPrivateDirs(dirs: string[]): Promise<string>
  setExclude(patterns: string[]): Promise<string>
  setChat(provider: string, model: string): Promise<void>
  /** Chooses the embedding model; the store switches to it once it is installed. */
  setEmbedModel(id: string): Promise<void>
  setAPIKey(provider: string, key: string): Promise<void>
  /** Writes or hides the login entry that starts the tray. */
  setAutostart(on: boolean): Promise<void>
  drafts(): Promise<T.DraftView[]>
  /** Something in the drafts tree changed (this window, the agent, jarvis-cli). */
  onDrafts(cb: () => void): () => void
  addDraftFile(id: string, file: string): Promise<void>
  /** Shows a draft file (or, with file '', the draft) in the file manager. */
  revealDraft(id: string, file: string): Promise<void>
  deleteDraft(id: string): Promise<void>
  /** The conversation docked beside a draft (made on first use). */
  draftSession(id: string): Promise<T.SessionView>
  askAboutDraft(session: string, id: string, file: string, message: string): Promise<void>
  newDraft(title: string, filename: string): Promise<T.Draft>
  setKeep(id: string, keep: boolean): Promise<void>
  openFile(id: string, file: string): Promise<T.FileView>
  saveFile(id: string, file: string, text: string, hash: string): Promise<string>
  versions(id: string, file: string): Promise<T.Version[]>
  readVersion(id: string, version: string): Promise<string>
  compareVersion(id: string, version: string): Promise<T.Hunk[]>
  restore(id: string, version: string): Promise<string>
  proposals(id: string): Promise<T.Proposal[]>
  apply(token: string, accepted: number[]): Promise<string>
  discard(token: string): Promise<void>
  discardAll(tokens: string[]): Promise<T.Discarded>
  undoDiscard(batch: string): Promise<number>
  tools(): Promise<T.Availability>
  render(id: string, file: string): Promise<T.RenderResult>
  pdfPage(ref: string, page: number): Promise<T.SourceView>
  /** Asks where to save a compiled PDF; '' when cancelled. */
  savePDF(ref: string): Promise<string>
  syncStatus(): Promise<T.SyncView>
  inbox(): Promise<T.InboxView>
  retryInbox(name: string): Promise<string>
  /** Opens a web address in the system browser, never inside the app. */
  openURL(url: string): Promise<void>
  copyText(text: string): Promise<void>
  /** Every proposal waiting for review, whichever process made it. */
  waitingProposals(): Promise<T.WaitingProposal[]>
  /** One waiting proposal, to review. */
  proposal(token: string): Promise<T.Proposal>
}

export function backendOver(t: Transport): Backend {
  const c = <R>(service: string, method: string, ...args: unknown[]) => t.call(service, method, ...args) as Promise<R>
  return {
    appInfo: () => c('Shell', 'Info'),
    onChat: (cb) => t.on('chat', (d) => cb(d as T.ChatEvent)),
    sessions: () => c('Chat', 'List'),
    newSession: (spec, kbOnly) => c('Chat', 'New', spec, kbOnly),
    openSession: (id) => c('Chat', 'Open', id),
    send: (id, m) => c('Chat', 'Send', id, m),
    continueReply: (id) => c('Chat', 'Continue', id),
    replay: (id) => c('Chat', 'Replay', id),
    stop: (id) => c('Chat', 'Stop', id),
    confirm: (token, yes) => c('Chat', 'Confirm', token, yes),
    rename: (id, title) => c('Chat', 'Rename', id, title),
    setPinned: (id, p) => c('Chat', 'SetPinned', id, p),
    setModel: (id, spec) => c('Chat', 'SetModel', id, spec),
    setKBOnly: (id, on) => c('Chat', 'SetKBOnly', id, on),
    review: (token, send, withhold) => c('Chat', 'Review', token, send, withhold),
    setAskBeforeSending: (id, on) => c('Chat', 'SetAskBeforeSending', id, on),
    askBeforeSendingDefault: () => c('Settings', 'AskBeforeSending'),
    setAskBeforeSendingDefault: (on) => c('Settings', 'SetAskBeforeSending', on),
    deleteSession: (id) => c('Chat', 'Delete', id),
    models: (current) => c('Chat', 'Models', current),
    documents: (kind, filter) => c('Library', 'Documents', kind, filter),
    search: (q, n) => c('Library', 'Search', q, n),
    searchStatus: () => c('Library', 'Status'),
    onKB: (cb) => t.on('kb', (d) => cb(d as T.SearchStatus)),
    stats: () => c('Library', 'Stats'),
    setMeta: (s, t2, a, d) => c('Library', 'SetMeta', s, t2, a, d),
    prepareRemove: (k) => c('Library', 'PrepareRemove', k),
    remove: (token, exclude) => c('Library', 'Remove', token, exclude),
    addFile: (p, full, priv, pw) => c('Library', 'Add', p, full, priv, pw ?? ''),
    pickFiles: () => c('Library', 'PickFiles'),
    syncVault: () => c('Library', 'SyncVault'),
    cancelOp: (id) => c('Library', 'CancelOp', id),
    recommendedModels: () => c('Setup', 'RecommendedModels'),
    pullModel: (name) => c('Setup', 'PullModel', name),
    retryOp: (id) => c('Library', 'RetryOp', id),
    ops: () => c('Library', 'Ops'),
    onOp: (cb) => t.on('op', (d) => cb(d as T.Op)),
    openCitation: (ci) => c('Library', 'OpenCitation', ci),
    viewSource: (ci, page) => c('Library', 'ViewSource', ci, page),
    revealCitation: (ci) => c('Library', 'RevealCitation', ci),
    obsidian: () => c('Shell', 'Obsidian'),
    zotero: () => c('Shell', 'Zotero'),
    openInZotero: (link) => c('Shell', 'OpenInZotero', link),
    openInObsidian: (rel) => c('Shell', 'OpenInObsidian', rel),
    configSummary: () => c('Settings', 'Summary'),
    ocr: () => c('Settings', 'OCR'),
    responseStyle: () => c('Settings', 'ResponseStyle'),
    setResponseStyle: (s) => c('Settings', 'SetResponseStyle', s),
    autoContinue: () => c('Settings', 'AutoContinue'),
    setAutoContinue: (n) => c('Settings', 'SetAutoContinue', n),
    prompts: () => c('Settings', 'Prompts'),
    memory: () => c('Settings', 'Memory'),
    addMemory: (text, priv) => c('Settings', 'AddMemory', text, priv),
    updateMemory: (id, text, priv) => c('Settings', 'UpdateMemory', id, text, priv),
    deleteMemory: (id) => c('Settings', 'DeleteMemory', id),
    mcp: () => c('Settings', 'MCP'),
    setMcpAllowPrivate: (on) => c('Settings', 'SetMCPAllowPrivate', on),
    ledger: (f) => c('Settings', 'Ledger', f),
    savePrompt: (n, text) => c('Settings', 'SavePrompt', n, text),
    resetPrompt: (n) => c('Settings', 'ResetPrompt', n),
    models_: () => c('Settings', 'Models'),
    fetchModels: () => c('Settings', 'FetchModels'),
    setupState: () => c('Setup', 'State'),
    chooseFolder: () => c('Setup', 'ChooseFolder'),
    setVault: (p) => c('Setup', 'SetVault', p),
    setZotero: (p) => c('Setup', 'SetZotero', p),
    syncZotero: () => c('Setup', 'SyncZotero'),
    zoteroCollections: () => c('Setup', 'ZoteroCollections'),
    setZoteroPrivate: (p) => c('Setup', 'SetZoteroPrivate', p),
    setPrivateDirs: (d) => c('Setup', 'SetPrivateDirs', d),
    setExclude: (p) => c('Setup', 'SetExclude', p),
    setChat: (p, m) => c('Setup', 'SetChat', p, m),
    setEmbedModel: (id) => c('Setup', 'SetEmbedModel', id),
    setAPIKey: (p, k) => c('Setup', 'SetAPIKey', p, k),
    setAutostart: (on) => c('Setup', 'SetAutostart', on),
    drafts: () => c('Editor', 'Drafts'),
    onDrafts: (cb) => t.on('drafts', () => cb()),
    addDraftFile: (id, f) => c('Editor', 'AddFile', id, f),
    revealDraft: (id, f) => c('Editor', 'Reveal', id, f),
    deleteDraft: (id) => c('Editor', 'DeleteDraft', id),
    draftSession: (id) => c('Editor', 'DraftSession', id),
    askAboutDraft: (sid, id, f, m) => c('Editor', 'AskAboutDraft', sid, id, f, m),
    newDraft: (title, f) => c('Editor', 'NewDraft', title, f),
    setKeep: (id, keep) => c('Editor', 'SetKeep', id, keep),
    openFile: (id, f) => c('Editor', 'Open', id, f),
    saveFile: (id, f, text, hash) => c('Editor', 'Save', id, f, text, hash),
    versions: (id, f) => c('Editor', 'Versions', id, f),
    readVersion: (id, v) => c('Editor', 'ReadVersion', id, v),
    compareVersion: (id, v) => c('Editor', 'CompareVersion', id, v),
    restore: (id, v) => c('Editor', 'Restore', id, v),
    proposals: (id) => c('Editor', 'Proposals', id),
    apply: (token, acc) => c('Editor', 'Apply', token, acc),
    discard: (token) => c('Editor', 'Discard', token),
    discardAll: (tokens) => c('Editor', 'DiscardAll', tokens),
    undoDiscard: (batch) => c('Editor', 'UndoDiscard', batch),
    tools: () => c('Editor', 'Tools'),
    render: (id, f) => c('Editor', 'Render', id, f),
    pdfPage: (ref, page) => c('Editor', 'PDFPage', ref, page),
    savePDF: (ref) => c('Editor', 'SavePDF', ref),
    syncStatus: () => c('Sync', 'Status'),
    inbox: () => c('Sync', 'Inbox'),
    retryInbox: (name) => c('Sync', 'RetryInbox', name),
    openURL: (url) => t.runtime('BrowserOpenURL', url),
    copyText: (text) => t.runtime('ClipboardSetText', text),
    waitingProposals: () => c('Editor', 'Waiting'),
    proposal: (token) => c('Editor', 'Proposal', token),
  }
}

/** Wails when it is there, else the test bridge on this page's origin. */
export function createBackend(w: WailsWindow = window as WailsWindow): Backend {
  return backendOver(w.go?.app ? wailsTransport(w) : bridgeTransport())
}
