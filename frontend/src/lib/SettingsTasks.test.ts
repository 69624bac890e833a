import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import Settings from './Settings.svelte'
import { completeSetup, fakeBackend } from './fake'

afterEach(() => cleanup())
beforeEach(() => localStorage.clear())

// Settings with every panel answered and auto_continue as the backend holds it.
function settings(start: number) {
  let value = start
  const w = fakeBackend({
    'Setup.State': () => completeSetup,
    'Setup.RecommendedModels': () => [],
    'Library.Ops': () => [],
    'Settings.ResponseStyle': () => '',
    'Settings.AutoContinue': () => value,
    'Settings.SetAutoContinue': (n: number) => void (value = n),
    'Settings.Summary': () => [],
    'Settings.Prompts': () => [{ name: 'system_prompt', text: 'system', modified: false }],
    'Settings.Models': () => [],
    'Settings.Memory': () => [],
    'Settings.AskBeforeSending': () => false,
    'Settings.Ledger': () => [],
    'Settings.OCR': () => ({ available: false, problem: 'no tesseract', hint: '', languages: [], installed: [] }),
  })
  render(Settings, { props: { backend: w.backend } })
  return { w, value: () => value }
}

describe('Settings → what a long task does at the tool-call limit', () => {
  it('shows the saved choice and saves a new one at once', async () => {
    const { w, value } = settings(2)
    const select = (await screen.findByLabelText('When a long task reaches the tool-call limit')) as HTMLSelectElement
    await waitFor(() => expect(select.value).toBe('2'))
    await fireEvent.change(select, { target: { value: '0' } })
    await waitFor(() => expect(w.called('Settings.SetAutoContinue').map((c) => c.args)).toEqual([[0]]))
    expect(value()).toBe(0)
    expect((await screen.findByRole('status')).textContent).toContain('pauses and asks')
  })
})
