// Chat state: the session list, the open sessions and each one's turn in
// flight. Turn events arrive tagged with a session id and a per-turn
// sequence number; an event older than the last one seen is a duplicate
// (or from a turn already rolled back) and is ignored.
import type { Backend } from './backend'
import { notices } from './notices.svelte'
import { loadJSON, saveJSON } from './persist'
import type { ChatEvent, Citation, Passage, SessionRow, SessionView, SourceView } from './types'

export interface ToolLine {
  text: string
  failed: boolean
}

export interface Confirmation {
  token: string
  text: string
}

/** Passages waiting for the user before a cloud model gets them. */
export interface Review {
  token: string
  text: string
  passages: Passage[]
}

export interface Turn {
  question: string
  tools: ToolLine[]
  status: string
  confirms: Confirmation[]
  reviews: Review[]
  live: string // reply text streaming in
  lastSeq: number
  /** A continuation: 'user' chose Continue, 'auto' the task went on by itself at the tool-call limit. */
  continued?: 'user' | 'auto'
}

const DRAFTS_KEY = 'jarvis.inputDrafts'

const loadDrafts = () => loadJSON<Record<string, string>>(DRAFTS_KEY, {})

export class ChatState {
  sessions = $state<SessionRow[]>([])
  views = $state<Record<string, SessionView>>({})
  turns = $state<Record<string, Turn>>({})
  activeId = $state('')
  inputs = $state<Record<string, string>>(loadDrafts())
  viewer = $state<{ citation: Citation; view: SourceView } | null>(null)
  obsidian = $state(false) // vault notes open in Obsidian (asked once, lazily)
  private askedObsidian = false
  zotero = $state(false) // Zotero items open in Zotero (asked with Obsidian)
  private off: () => void

  constructor(private backend: Backend) {
    this.off = backend.onChat((e) => this.onEvent(e))
  }

  dispose() {
    this.off()
  }

  get active(): SessionView | undefined {
    return this.views[this.activeId]
  }

  get turn(): Turn | undefined {
    return this.turns[this.activeId]
  }

  private fail(e: unknown) {
    notices.report(e)
  }

  async refresh() {
    try {
      this.sessions = await this.backend.sessions()
    } catch (e) {
      this.fail(e)
    }
  }

  async create(spec = '', kbOnly = true) {
    try {
      const v = await this.backend.newSession(spec, kbOnly)
      this.views[v.id] = v
      this.activeId = v.id
      await this.refresh()
    } catch (e) {
      this.fail(e)
    }
  }

  async open(id: string) {
    if (await this.load(id)) this.activeId = id
  }

  /** Loads a session's view (and its running turn) without making it the
   * chat view's active one: the editor's docked conversation. Quiet: a
   * session that is gone is no error worth a notice. */
  async load(id: string, quiet = false): Promise<boolean> {
    try {
      const v = await this.backend.openSession(id)
      this.views[id] = v
      // A question a crash left unanswered comes back to the message box,
      // as a stopped one does.
      if (v.pending && !v.busy && !this.inputs[id]?.trim()) this.setInput(id, v.pending)
      if (v.busy && !this.turns[id]) await this.resync(id)
      return true
    } catch (e) {
      if (!quiet) this.fail(e)
      return false
    }
  }

  /** A window opened while a turn runs rebuilds it from the backend's
   * replay: the same events, in sequence, then live ones continue. */
  async resync(id: string) {
    const r = await this.backend.replay(id)
    if (!r || this.turns[id]) return
    // A turn with no question of the user's is the task going on by itself.
    this.turns[id] = { question: r.question, tools: [], status: 'thinking', confirms: [], reviews: [], live: '', lastSeq: 0, continued: r.question ? undefined : 'auto' }
    for (const e of r.events) this.onEvent(e)
  }

  /** Per-session input drafts survive switching sessions and restarts. */
  setInput(id: string, text: string) {
    this.inputs[id] = text
    saveJSON(DRAFTS_KEY, this.inputs)
  }

  /** Sends a message in a session (the active one unless named); via
   * sends it another way (the editor's, which names the draft). */
  async send(text: string, id = this.activeId, via = (sid: string, m: string) => this.backend.send(sid, m)) {
    const message = text.trim()
    if (!id || !message || this.turns[id]) return
    this.turns[id] = { question: message, tools: [], status: 'sending', confirms: [], reviews: [], live: '', lastSeq: 0 }
    this.setInput(id, '')
    try {
      await via(id, message)
    } catch (e) {
      delete this.turns[id]
      this.setInput(id, message)
      this.fail(e)
    }
  }

  /** Continue asks the model to go on with a reply cut off at the output
   * limit; it runs as a turn like send. */
  async continueReply() {
    const id = this.activeId
    if (!id || this.turns[id]) return
    this.turns[id] = { question: 'Continue', tools: [], status: 'sending', confirms: [], reviews: [], live: '', lastSeq: 0, continued: 'user' }
    try {
      await this.backend.continueReply(id)
    } catch (e) {
      delete this.turns[id]
      this.fail(e)
    }
  }

  /** Stop returns the composer at once; the backend rolls the turn back.
   * The question comes back into the message box unless something new
   * was typed there meanwhile. */
  async stop(id = this.activeId) {
    const t = this.turns[id]
    if (!t) return
    delete this.turns[id]
    if (!this.inputs[id]?.trim()) this.setInput(id, t.question)
    try {
      await this.backend.stop(id)
    } catch (e) {
      this.fail(e)
    }
  }

  async answer(token: string, yes: boolean) {
    for (const t of Object.values(this.turns)) t.confirms = t.confirms.filter((c) => c.token !== token)
    try {
      await this.backend.confirm(token, yes)
    } catch (e) {
      this.fail(e)
    }
  }

  /** Answers a review: send (withholding those passages) or cancel the turn. */
  async review(token: string, send: boolean, withhold: number[] = []) {
    for (const t of Object.values(this.turns)) t.reviews = t.reviews.filter((r) => r.token !== token)
    try {
      await this.backend.review(token, send, withhold)
    } catch (e) {
      this.fail(e)
    }
  }

  onEvent(e: ChatEvent) {
    const t = this.turns[e.session_id]
    if (!t || e.seq <= t.lastSeq) return
    t.lastSeq = e.seq
    switch (e.kind) {
      case 'status':
        t.status = e.text
        break
      case 'delta':
        t.live += e.text
        break
      case 'tool':
        t.live = '' // text before a tool call was the model thinking aloud
        t.tools.push({ text: e.text, failed: e.text.endsWith(' failed') })
        break
      case 'confirm':
        t.confirms.push({ token: String(e.data?.token ?? ''), text: e.text })
        break
      case 'review':
        t.reviews.push({ token: String(e.data?.token ?? ''), text: e.text, passages: (e.data?.passages as Passage[]) ?? [] })
        break
      case 'reply':
      case 'error':
      case 'stopped':
        this.finish(e, t)
        // A reply paused at the tool-call limit that the backend goes on
        // with by itself: the same turn runs on (its events keep their
        // sequence), shown as a continuation with nothing of the user's.
        if (e.kind === 'reply' && e.data?.continuing === true)
          this.turns[e.session_id] = { question: '', tools: [], status: 'continuing', confirms: [], reviews: [], live: '', lastSeq: e.seq, continued: 'auto' }
        break
    }
  }

  private async finish(e: ChatEvent, t: Turn) {
    const id = e.session_id
    delete this.turns[id]
    const restore = e.data?.restore_input
    if (e.kind === 'error' && typeof restore === 'string' && !this.inputs[id]?.trim()) this.setInput(id, restore)
    if (e.kind === 'stopped' && !this.inputs[id]) this.setInput(id, t.question)
    try {
      this.views[id] = await this.backend.openSession(id)
    } catch (err) {
      this.fail(err)
    }
    // A failed turn is usually kept in the conversation with its warning;
    // only a failure the conversation does not show is reported apart.
    if (e.kind === 'error') {
      const last = this.views[id]?.display.at(-1)
      if (!(last?.role === 'assistant' && last.text.includes(e.text.replace(/^⚠️\s*/, '')))) this.fail(new Error(e.text))
    }
    await this.refresh()
  }

  /** Runs a change to a session that answers with its new view, and keeps
   * that view; relist: the change shows in the session list too. */
  private async change(id: string, call: () => Promise<SessionView>, relist: boolean) {
    try {
      this.views[id] = await call()
      if (relist) await this.refresh()
    } catch (e) {
      this.fail(e)
    }
  }

  async rename(id: string, title: string) {
    await this.change(id, () => this.backend.rename(id, title), true)
  }

  async togglePin(row: SessionRow) {
    await this.change(row.id, () => this.backend.setPinned(row.id, !row.pinned), true)
  }

  async remove(id: string) {
    try {
      await this.backend.deleteSession(id)
      delete this.views[id]
      if (this.activeId === id) this.activeId = ''
      await this.refresh()
    } catch (e) {
      this.fail(e)
    }
  }

  async setModel(spec: string) {
    const id = this.activeId
    if (id) await this.change(id, () => this.backend.setModel(id, spec), true)
  }

  async setAskBeforeSending(on: boolean) {
    const id = this.activeId
    if (id) await this.change(id, () => this.backend.setAskBeforeSending(id, on), false)
  }

  async setKBOnly(on: boolean) {
    const id = this.activeId
    if (id) await this.change(id, () => this.backend.setKBOnly(id, on), false)
  }

  /** Shows a cited source in the app: the PDF page, or the stored text. */
  async viewCitation(c: Citation, page = 0) {
    try {
      this.viewer = { citation: c, view: await this.backend.viewSource(c, page) }
    } catch (e) {
      this.fail(e)
    }
  }

  async openCitation(c: Citation) {
    try {
      await this.backend.openCitation(c)
    } catch (e) {
      this.fail(e)
    }
  }

  /** Asks once whether Obsidian is there; not knowing is "no". */
  loadObsidian() {
    if (this.askedObsidian) return
    this.askedObsidian = true
    this.backend.obsidian().then(
      (yes) => (this.obsidian = yes),
      () => (this.obsidian = false),
    )
    this.backend.zotero().then(
      (yes) => (this.zotero = yes),
      () => (this.zotero = false),
    )
  }

  /** Opens a cited Zotero item in Zotero (the PDF at the cited page and
   *  annotation), or in Jarvis's own viewer when Zotero cannot take it. */
  async openInZotero(c: Citation) {
    try {
      await this.backend.openInZotero(c.link ?? '')
    } catch {
      await this.viewCitation(c)
    }
  }

  /** Opens a cited vault note in Obsidian, or in Jarvis's own viewer when
   *  Obsidian cannot take it. */
  async openInObsidian(c: Citation) {
    try {
      await this.backend.openInObsidian(c.file_path || c.source)
    } catch {
      await this.viewCitation(c)
    }
  }

  async revealCitation(c: Citation) {
    try {
      await this.backend.revealCitation(c)
    } catch (e) {
      this.fail(e)
    }
  }
}
