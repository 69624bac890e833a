// A scriptable transport for component tests: answers calls from a table
// and lets a test push backend events.
import { backendOver, BackendError, type Transport } from './backend'

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
