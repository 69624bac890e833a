import { render, screen } from '@testing-library/svelte'
import { describe, expect, it } from 'vitest'
import App from './App.svelte'
import { createBackend, type Backend } from './lib/backend'

const fake = (over: Partial<Awaited<ReturnType<Backend['appInfo']>>> = {}): Backend => ({
  appInfo: async () => ({ version: '0.1.0', provider: 'ollama', model: 'qwen3-vl:30b', dataDir: '/tmp/j', warnings: [], ...over }),
})

describe('App shell', () => {
  it('renders header, sidebar placeholders and an empty chat pane', async () => {
    render(App, { props: { backend: fake() } })
    expect(screen.getByRole('heading', { name: 'Jarvis' })).toBeTruthy()
    expect(screen.getByText('Sessions')).toBeTruthy()
    expect(screen.getByText('No sessions yet.')).toBeTruthy()
    expect(screen.getByLabelText('Message')).toBeTruthy()
    expect(await screen.findByText('qwen3-vl:30b')).toBeTruthy()
  })

  it('shows config warnings from the backend', async () => {
    render(App, { props: { backend: fake({ warnings: ['config.toml is readable by other users'] }) } })
    expect(await screen.findByText(/readable by other users/)).toBeTruthy()
  })

  it('explains a missing backend instead of failing silently', async () => {
    render(App, { props: { backend: createBackend({} as Window) } })
    expect(await screen.findByRole('alert')).toBeTruthy()
    expect(screen.getByRole('alert').textContent).toContain('not connected')
  })
})
