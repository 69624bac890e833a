import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte'
import { afterEach, describe, expect, it } from 'vitest'
import McpSettings from './McpSettings.svelte'
import { fakeBackend } from './fake'
import type { McpOverview } from './types'

afterEach(() => cleanup())

const overview = (allow: boolean): McpOverview => ({
  clients: [
    { app: 'claude-desktop', name: 'Claude Desktop', where: 'claude_desktop_config.json', format: 'json', snippet: '{"mcpServers":{"jarvis":{"command":"/usr/bin/jarvis-cli","args":["mcp"]}}}' },
    { app: 'claude-code', name: 'Claude Code', where: 'run in a terminal', format: 'shell', snippet: 'claude mcp add jarvis -- /usr/bin/jarvis-cli mcp' },
  ],
  token: 'a'.repeat(64),
  http_addr: '127.0.0.1:8765',
  allow_private: allow,
  recent: [{ time: '2026-12-04T10:00:00Z', client: 'claude-ai', method: 'tools/call', name: 'search', sources: ['garden/compost.md'], bytes: 812, withheld: 2, ms: 4 }],
  cli_found: true,
})

describe('Settings → Use Jarvis from other AI apps', () => {
  it('shows each app snippet, copies it, hides the token and lists the last calls', async () => {
    const w = fakeBackend({ 'Settings.MCP': () => overview(false) })
    render(McpSettings, { props: { backend: w.backend } })
    expect((await screen.findByTestId('mcp-snippet')).textContent).toContain('"mcpServers"')
    await fireEvent.click(screen.getByText('Copy'))
    await waitFor(() => expect(w.called('runtime.ClipboardSetText')[0]?.args[0]).toContain('/usr/bin/jarvis-cli'))
    await fireEvent.click(screen.getByText('Claude Code'))
    expect(screen.getByTestId('mcp-snippet').textContent).toBe('claude mcp add jarvis -- /usr/bin/jarvis-cli mcp')
    expect(screen.getByTestId('mcp-token').textContent).not.toContain('aaaa')
    await fireEvent.click(screen.getByText('Show'))
    expect(screen.getByTestId('mcp-token').textContent).toBe('a'.repeat(64))
    const row = screen.getByTestId('mcp-call').textContent ?? ''
    expect(row).toContain('claude-ai')
    expect(row).toContain('search')
    expect(row).toContain('1 sources, 812 bytes')
    expect(row).toContain('2 private kept back')
  })

  it('asks before letting apps see private notes, and warns while it is on', async () => {
    let allow = false
    const w = fakeBackend({
      'Settings.MCP': () => overview(allow),
      'Settings.SetMCPAllowPrivate': (on: boolean) => {
        allow = on
        return null
      },
    })
    render(McpSettings, { props: { backend: w.backend } })
    const box = (await screen.findByTestId('mcp-allow-private')) as HTMLInputElement
    await fireEvent.click(box)
    expect(screen.getByTestId('mcp-confirm')).toBeTruthy()
    expect(w.called('Settings.SetMCPAllowPrivate')).toHaveLength(0)
    await fireEvent.click(screen.getByText('Cancel'))
    expect(screen.queryByTestId('mcp-confirm')).toBeNull()
    expect(w.called('Settings.SetMCPAllowPrivate')).toHaveLength(0)

    await fireEvent.click(box)
    await fireEvent.click(screen.getByText('Allow private notes'))
    await waitFor(() => expect(screen.getByTestId('mcp-private-on')).toBeTruthy())
    expect(w.called('Settings.SetMCPAllowPrivate')[0].args).toEqual([true])
    await fireEvent.click(screen.getByTestId('mcp-allow-private'))
    await waitFor(() => expect(screen.queryByTestId('mcp-private-on')).toBeNull())
    expect(w.called('Settings.SetMCPAllowPrivate')[1].args).toEqual([false])
  })
})
