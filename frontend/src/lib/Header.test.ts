import { cleanup, fireEvent, render, screen } from '@testing-library/svelte'
import { afterEach, describe, expect, it } from 'vitest'
import Header from './Header.svelte'
import type { SessionView } from './types'

const info = { version: '0.1.0', provider: 'openrouter', model: 'openrouter/auto', dataDir: '/tmp/j', warnings: [] as string[] }

function session(over: Partial<SessionView> = {}): SessionView {
  return { id: 'a', title: 'A', spec: 'openrouter:openrouter/auto', private: false, kbOnly: true, pinned: false, costUsd: 0, busy: false, display: [], ...over }
}

const props = (s: SessionView) => ({ info, session: s, models: [], page: 'chat', onModel() {}, onKBOnly() {}, onNav() {}, onJump() {} })

afterEach(() => cleanup())

describe('the header', () => {
  it('shows no cost when no provider reported one: never an invented $0.00', () => {
    render(Header, { props: props(session({ cost: [] })) })
    expect(screen.queryByTestId('cost')).toBeNull()
    expect(document.body.textContent).not.toContain('$0.00')
  })

  it('shows the reported cost with its breakdown by model, and the model a router picked', async () => {
    const s = session({
      costUsd: 0.034,
      servedModel: 'mistral/small',
      cost: [
        { model: 'openrouter:meta/llama-4', usd: 0.03, requests: 2 },
        { model: 'openrouter:mistral/small', usd: 0.004, requests: 1 },
      ],
    })
    render(Header, { props: props(s) })
    const cost = screen.getByTestId('cost')
    expect(cost.textContent).toBe('$0.03')
    expect(cost.getAttribute('title')).toContain('openrouter:mistral/small: $0.0040 (1 request)')
    expect(screen.getByTestId('served').textContent).toContain('answered by mistral/small')
    await fireEvent.click(cost)
    const rows = screen.getByTestId('cost-breakdown').querySelectorAll('li')
    expect(rows.length).toBe(2)
    expect(rows[0].textContent).toContain('openrouter:meta/llama-4')
    expect(rows[0].textContent).toContain('2 requests')
  })

  it('drops the served model once the session has switched', () => {
    render(Header, { props: props(session({ servedModel: '' })) })
    expect(screen.queryByTestId('served')).toBeNull()
  })
})
