// JSON shapes of the Go services (app/*.go and the backend types they return).

export interface AppInfo {
  version: string
  provider: string
  model: string
  dataDir: string
  warnings: string[]
}

export interface Citation {
  source: string
  title?: string
  page?: number
  chunk_id?: number
  file_path?: string
  wikilink?: string // a vault note's [[Note#Heading]]
  link?: string // opens the cited place in its own program (zotero://…)
}

export interface DisplayItem {
  role: 'user' | 'assistant' | 'tool' | 'status'
  text: string
  citations?: Citation[]
  tools?: string[]
  at: string
  stop?: string // 'length' (partial text), 'refusal' or 'content_filter' (a notice, not an answer)
  notice?: string
  offline?: boolean // search results: no language model was reachable
  own_knowledge?: boolean // answered (in part) from the model's general knowledge
  no_evidence?: boolean // searched, nothing citable: the fixed not-enough-evidence answer
  sent?: string // what this turn sent to a cloud model; its records are in the cloud ledger
  /** A question that is a continuation's prompt, not the user's words: 'user' chose Continue, 'auto' the task went on by itself at the tool-call limit. */
  continued?: 'user' | 'auto'
}

export interface SessionRow {
  id: string
  title: string
  updated: string
  pinned: boolean
  private: boolean
  spec: string
  busy: boolean
}

export interface SessionView {
  id: string
  title: string
  spec: string
  private: boolean
  kbOnly: boolean
  pinned: boolean
  costUsd: number
  busy: boolean
  display: DisplayItem[]
  /** The model a router picked, when it differs from spec ('' otherwise). */
  servedModel?: string
  /** Reported spend by the model that answered; empty: no cost known. */
  cost?: ModelCost[]
  /** A question a crash left unanswered. */
  pending?: string
  /** The model runs elsewhere: what it is sent leaves the machine. */
  cloud?: boolean
  /** Found passages wait for the user before the cloud model gets them. */
  asksBeforeSending?: boolean
}

/** One piece of knowledge-base text a cloud model would be sent. */
export interface Passage {
  title: string
  source?: string
  text: string
  bytes: number
}

export interface ChatEvent {
  session_id: string
  seq: number
  kind: 'tool' | 'confirm' | 'review' | 'status' | 'reply' | 'stopped' | 'error' | 'delta'
  text: string
  data?: Record<string, unknown>
}

export interface CatalogueEntry {
  spec: string
  provider: string
  model: string
  local: boolean
  available: boolean
  current: boolean
}

export interface DocumentSummary {
  key: string
  doc_type: string
  visibility: string
  source: string
  file_path?: string
  title: string
  chunks: number
  authors?: string
  doi?: string
  category?: string
  status?: string
  entity?: string
  event_date?: string
  tags?: string[]
  /** When it was last edited or added (RFC 3339). */
  changed?: string
  /** A paper's publication year. */
  year?: string
  /** When it first entered the knowledge base (RFC 3339). */
  added?: string
  /** How many of its chunks are the reader's highlights and notes. */
  annotations?: number
  /** The name the document is cited by, and recorded by in the cloud ledger. */
  cited?: string
  /** How often its text went to a cloud model; absent when never. */
  sent?: { times: number; last: string }
}

export interface HitView {
  citation: Citation
  docType: string
  private: boolean
  section: string
  text: string
  /** The part of text where the query matched, the matches marked (absent from older bridges). */
  excerpt?: { text: string; match?: boolean }[] | null
  score: number
  /** Set when the text was recognised off a scan or an image: "recognised by OCR, 93% confidence". */
  ocr?: string
}

export interface SearchView {
  hits: HitView[]
  mode: string // keyword | hybrid (keyword + dense), + rerank
  detail: string
}

export interface SearchStatus {
  mode: string
  summary: string // the mode with the chunks still waiting for vectors
  chunks: number
  pending: number
}

/** One missing piece of the setup: a sentence, what to do, the technical details. */
export interface Issue {
  message: string
  hint?: string
  details?: string
}

export interface SetupView {
  vault: { path: string; exists: boolean; private_dirs: string[]; exclude: string[]; folders: string[] }
  chat: { spec: string; provider: string; model: string; cloud: boolean; ready: boolean; installed?: string[] }
  ollama: { url: string; running: boolean; models: string[]; problem?: string; hint?: string }
  keys: Record<string, boolean>
  models: { role: string; spec: string; installed: boolean; loaded: boolean }[] | null
  /** The choice of embedding model, and the languages of the vault it is suggested from. */
  embedding?: EmbeddingChoice
  search: { mode: string; chunks: number; pending: number }
  issues?: Record<string, Issue>
  complete: boolean
  downloadMB: number
  configured: Record<string, string> // each provider's configured model
  /** The tray at login: 'on', 'off', 'unset' (on once a vault is chosen) or 'unavailable'. */
  autostart?: string
  /** The Zotero library read, or the ones found at Zotero's usual places. */
  zotero?: { dataDir?: string; found: string[]; problem?: string }
}

/** A collection of the chosen Zotero library; items counts those under it too. */
export interface ZoteroCollection {
  path: string
  items: number
  private: boolean
}

export interface EmbeddingChoice {
  options: { id: string; multilingual: boolean; note?: string; license: string; installed: boolean; chosen: boolean }[] | null
  /** Chunks of a sample of the store by main language, most first. */
  languages: { lang: string; chunks: number }[] | null
  sampled: number
  suggest?: string
  why?: string
  rerank_english_only: boolean
}

export interface Counts {
  chunks: number
  documents: number
  private: number
  by_type: Record<string, number>
}

export interface RemovalPreview {
  token: string
  key: string
  title: string
  chunks: number
  notice: string
  exclude?: string // a vault note's path, offered for vault.exclude
}

/** A fact the user asked Jarvis to remember. */
export interface MemoryFact {
  id: string
  text: string
  private: boolean
  created_at: string
  updated_at: string
}

export interface Prompt {
  name: string
  title?: string
  description?: string
  text: string
  modified: boolean
}

export interface Draft {
  id: string
  title: string
  visibility: string
  main_file: string
  files: string[]
  keep: boolean
  updated_at?: string
  chat_session?: string
}

/** A draft in the editor's list: its folder and the days retention leaves
 * it (null when kept or retention is off). */
export interface DraftView extends Draft {
  path: string
  days_left: number | null
}

export interface FileView {
  draft: string
  file: string
  text: string
  hash: string
}

export interface Version {
  id: string
  file: string
  size: number
  at: string
}

export interface Hunk {
  index: number
  kind: 'add' | 'remove' | 'replace'
  old_start: number
  old_end: number
  new_start: number
  new_end: number
  old_lines: string[]
  new_lines: string[]
  old_spans: [number, number][] | null
  new_spans: [number, number][] | null
}

/** Proposals set aside together by "Discard all", undoable in this window. */
export interface Discarded {
  batch: string
  count: number
}

export interface Proposal {
  token: string
  draft_id: string
  file: string
  base_hash: string
  session_id?: string
  summary: string
  hunks: Hunk[]
  created_at?: string
  stale?: boolean // the file changed since: it can no longer be applied
}

export interface Availability {
  latex: boolean
  pandoc: boolean
}

/** The first error of a TeX run, with the lines TeX printed after it. */
export interface LogError {
  message: string
  file?: string
  line?: number
  context: string[]
}

/** A compile or export: a failed run is a result with its log. */
export interface RenderResult {
  ok: boolean
  pdf?: string // reference for pdfPage / savePDF
  pages?: number
  error?: string
  first?: LogError
  log: string
}

export interface JobLine {
  ID: string
  Title: string
}

/** One file of the PDF inbox and what became of it. */
export interface InboxFile {
  name: string
  size: number
  state: 'indexed' | 'waiting' | 'failed'
  error?: string
  at?: string
  title?: string
  private?: boolean
}

export interface InboxView {
  dir: string // '' when no inbox is set up
  files: InboxFile[]
}

export interface SyncView {
  running: boolean
  pid: number
  since: string
  jobs: JobLine[]
}

/** A small local model the setup panel offers to download through Ollama. */
export interface RecommendedModel {
  name: string
  size: string
  about: string
}

export interface Op {
  op_id: string
  kind: string
  title: string
  seq: number
  stage: string
  done: number
  total: number
  unit?: string
  state: 'running' | 'done' | 'failed' | 'cancelled'
  result?: string
  error?: string
  code?: string
  hint?: string
  retryable?: boolean
  started?: string
}

export interface SourceView {
  title: string
  path?: string
  page?: number
  pages?: number
  image?: string
  marks?: { x: number; y: number; w: number; h: number }[] // cited passage, fractions of the page
  chunks?: { id: number; text: string }[]
  cited?: number
}

export interface TurnInFlight {
  question: string
  events: ChatEvent[]
}

export interface ModelRow {
  id: string
  role: string
  license: string
  configured: boolean
  installed: boolean
  missing: number
}

export interface ModelCost {
  model: string
  usd: number
  requests: number
}

/** A proposal in the editor's "Waiting for review" list. */
export interface WaitingProposal extends Proposal {
  draft_title: string
}

/** One AI app's setup snippet for Jarvis's MCP server. */
export interface McpClient {
  app: string
  name: string
  where: string
  format: string
  snippet: string
}

/** One call an MCP client made, as the call log keeps it. */
export interface McpCall {
  time: string
  client?: string
  client_version?: string
  method: string
  name?: string
  args?: string
  sources?: string[]
  bytes: number
  withheld?: number
  error?: string
  ms: number
}

/** Settings → Use Jarvis from other AI apps. */
export interface McpOverview {
  clients: McpClient[]
  token: string
  http_addr: string
  allow_private: boolean
  recent: McpCall[]
  cli_found: boolean
}

export interface LedgerSource {
  key: string
  title?: string
}

/** One request sent to a model service (backend/ledger.Record). */
export interface LedgerRecord {
  id: number
  started: string
  finished?: string
  pid: number
  process: string
  purpose: string
  provider: string
  model: string
  local: boolean
  session?: string
  sources?: LedgerSource[]
  request_bytes: number
  response_bytes: number
  input_tokens?: number
  output_tokens?: number
  cost_usd?: number
  outcome: 'sending' | 'ok' | 'cut off' | 'refused' | 'error' | 'cancelled' | 'incomplete'
  error?: string
  body?: string
}

export interface LedgerFilter {
  session: string
  source: string
  provider: string
  purpose: string
  local: boolean
}

/** The OCR capability (Settings.OCR). */
export interface OCRView {
  available: boolean
  engine?: string
  languages: string[]
  installed: string[]
  problem?: string
  hint: string
}
