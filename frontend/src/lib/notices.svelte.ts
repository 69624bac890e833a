// Problems shown to the user, in one place and once each: a failed call
// becomes one friendly sentence chosen by its stable error code, the hint
// on what to do, and the message (without the internal operation names)
// as the details behind a disclosure (lib/Problem.svelte).
import { toBackendError } from './backend'

export interface Problem {
  id: number
  title: string
  detail: string
  hint: string
}

const titles: Record<string, string> = {
  llm: 'The language model did not answer.',
  fetch: 'A download failed.',
  rag: 'The knowledge base had a problem.',
  conversion: 'The document could not be read.',
  locked: 'The document is password-protected.',
  not_found: 'Not found.',
  invalid: 'That did not work.',
  conflict: 'Something changed in the meantime.',
  privacy: 'Kept private.',
  cancelled: 'Stopped.',
  internal: 'Something went wrong.',
}

/** Whether a message is a technical chain (addresses, wrapped causes)
 * rather than words meant for the user: such text goes behind "Details". */
export function technical(message: string): boolean {
  return message.length > 160 || /:\/\/|dial tcp|errno|\b[a-z]+\.[A-Za-z]+: /.test(message) || (message.match(/: /g)?.length ?? 0) >= 2
}

/** "chat.Start: library: no document" -> "No document". */
export function plain(message: string): string {
  let m = message.trim().replace(/^⚠️\s*/, '')
  for (let i = 0; i < 4; i++) {
    const next = m.replace(/^[a-z][\w-]*(\.[A-Za-z]+)?: /, '')
    if (next === m) break
    m = next
  }
  return m.charAt(0).toUpperCase() + m.slice(1)
}

/** Wording for a failure. */
export function describe(e: unknown): Omit<Problem, 'id'> {
  const err = toBackendError(e)
  let hint = err.hint
  let detail = plain(err.message)
  if (hint && detail.endsWith(` (${hint})`)) detail = detail.slice(0, -hint.length - 3) // said once, as the hint
  let code = err.code
  if (!hint && /connection refused|no such host|dial tcp/i.test(detail)) {
    hint = 'Is the model server running? Check chat.ollama_url or the provider in Settings.'
    code ||= 'llm'
  }
  if (!hint && /deadline exceeded|timed? ?out/i.test(detail)) hint = 'It took too long; try again.'
  return { title: titles[code] ?? 'Something went wrong.', detail, hint }
}

export class Notices {
  list = $state<Problem[]>([])
  private next = 1

  /** Shows a failure unless the same one is already on screen. */
  report(e: unknown) {
    const p = describe(e)
    if (this.list.some((q) => q.detail === p.detail)) return
    this.list.push({ ...p, id: this.next++ })
    if (this.list.length > 4) this.list.shift()
  }

  dismiss(id: number) {
    this.list = this.list.filter((p) => p.id !== id)
  }

  clear() {
    this.list = []
  }
}

/** The window's one list of problems. */
export const notices = new Notices()
