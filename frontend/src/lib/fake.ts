// A scriptable transport for component tests: answers calls from a table
// and lets a test push backend events.
import { backendOver, BackendError, type Transport } from './backend'
import type { SetupView } from './types'

export type Handler = (...args: any[]) => unknown

export function fakeBackend(handlers: Record<string, Handler>) {
  const calls: { name: string; args: unknown[] }[] = []
  const listeners = new Map<string, Set<(d: unknown) => void>>()
  const t: Transport = {
    async call(service, method, ...args) {
      const name = `${service}.${method}`
      calls.push({ name, args })
      const h = handlers[name]
      if (!h) throw new BackendError(`unexpected call ${name}`)
      return h(...args)
    },
    on(event, cb) {
      if (!listeners.has(event)) listeners.set(event, new Set())
      listeners.get(event)!.add(cb)
      return () => listeners.get(event)?.delete(cb)
    },
    async runtime(name, ...args) {
      calls.push({ name: `runtime.${name}`, args })
    },
  }
  return {
    backend: backendOver(t),
    calls,
    emit: (event: string, data: unknown) => listeners.get(event)?.forEach((cb) => cb(data)),
    called: (name: string) => calls.filter((c) => c.name === name),
  }
}

/** A setup with nothing missing (the setup panel stays out of the way). */
export const completeSetup: SetupView = {
  vault: { path: '/home/ada/notes', exists: true, private_dirs: ['private'], exclude: [], folders: ['garden', 'private'] },
  chat: { spec: 'ollama:qwen3-vl:30b', provider: 'ollama', model: 'qwen3-vl:30b', cloud: false, ready: true, installed: ['qwen3-vl:30b'] },
  ollama: { url: 'http://127.0.0.1:11434', running: true, models: ['qwen3-vl:30b'] },
  keys: { anthropic: false, openrouter: false },
  models: [{ role: 'embed', spec: 'BAAI/bge-small-en-v1.5', installed: true, loaded: true }],
  search: { mode: 'hybrid (keyword + dense)', chunks: 12, pending: 0 },
  issues: {},
  complete: true,
  downloadMB: 220,
  configured: { ollama: 'qwen3-vl:30b', anthropic: 'claude-sonnet-4-6', openrouter: 'openai/gpt-4o' },
}

/** A first launch: no vault, no chat model, no search models. */
export const freshSetup: SetupView = {
  ...completeSetup,
  vault: { path: '/home/ada/vault', exists: false, private_dirs: ['private'], exclude: [], folders: [] },
  chat: { spec: 'ollama:qwen3-vl:30b', provider: 'ollama', model: 'qwen3-vl:30b', cloud: false, ready: false },
  ollama: { url: 'http://127.0.0.1:11434', running: false, models: [], problem: 'Ollama is not running at http://127.0.0.1:11434.',
    hint: 'Install it from https://ollama.com, start it with `ollama serve` (or open the Ollama app), pull a model with `ollama pull llama3.2`, then check again.' },
  models: [{ role: 'embed', spec: 'BAAI/bge-small-en-v1.5', installed: false, loaded: false }],
  search: { mode: 'keyword', chunks: 0, pending: 0 },
  issues: {
    vault: { message: 'Choose the folder that holds your notes.', hint: 'Jarvis reads Markdown notes from an Obsidian vault or any folder of .md files; nothing in it is changed.', details: 'vault.path = /home/ada/vault does not exist' },
    chat: { message: 'No language model answers yet: questions get the best matching passages with their citations.', hint: 'Start Ollama and pick one of its models, or enter an Anthropic or OpenRouter key.',
      details: 'ollama.models: Ollama is not running at http://127.0.0.1:11434: Get "http://127.0.0.1:11434/api/tags": dial tcp 127.0.0.1:11434: connect: connection refused' },
    models: { message: 'Search works by keyword. The search models add meaning-based search and better ranking.', hint: 'Download them once (≈ 220 MB from Hugging Face, or a mirror set in HF_ENDPOINT); your notes stay searchable meanwhile.' },
  },
  complete: false,
}
