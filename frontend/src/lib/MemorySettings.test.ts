import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte'
import { afterEach, describe, expect, it } from 'vitest'
import MemorySettings from './MemorySettings.svelte'
import { fakeBackend } from './fake'
import type { MemoryFact } from './types'

afterEach(() => cleanup())

describe('Settings → Memory', () => {
  it('lists, adds, edits and forgets remembered facts', async () => {
    let facts: MemoryFact[] = [{ id: 'mem-1', text: 'Answer in British English', private: false, created_at: '', updated_at: '' }]
    const w = fakeBackend({
      'Settings.Memory': () => facts,
      'Settings.AddMemory': (text: string, priv: boolean) => {
        const f = { id: 'mem-2', text, private: priv, created_at: '', updated_at: '' }
        facts = [...facts, f]
        return f
      },
      'Settings.UpdateMemory': (id: string, text: string, priv: boolean) => {
        facts = facts.map((f) => (f.id === id ? { ...f, text, private: priv } : f))
        return facts.find((f) => f.id === id)
      },
      'Settings.DeleteMemory': (id: string) => {
        facts = facts.filter((f) => f.id !== id)
        return null
      },
    })
    render(MemorySettings, { props: { backend: w.backend } })
    expect((await screen.findByTestId('memory-fact')).textContent).toContain('Answer in British English')

    await fireEvent.input(screen.getByLabelText('A fact to remember'), { target: { value: 'I see Dr. Tanaka on Mondays' } })
    await fireEvent.click(screen.getByLabelText('private', { selector: 'form:last-of-type input' }))
    await fireEvent.click(screen.getByRole('button', { name: 'Remember' }))
    await waitFor(() => expect(w.called('Settings.AddMemory')[0]?.args).toEqual(['I see Dr. Tanaka on Mondays', true]))
    await waitFor(() => expect(screen.getAllByTestId('memory-fact')).toHaveLength(2))
    expect(screen.getAllByTestId('memory-fact')[1].textContent).toContain('private')

    await fireEvent.click(screen.getAllByRole('button', { name: 'Edit' })[0])
    await fireEvent.input(screen.getByLabelText('Edit the fact'), { target: { value: 'Answer in Australian English' } })
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(w.called('Settings.UpdateMemory')[0]?.args).toEqual(['mem-1', 'Answer in Australian English', false]))
    await waitFor(() => expect(screen.getAllByTestId('memory-fact')[0].textContent).toContain('Australian'))

    await fireEvent.click(screen.getByRole('button', { name: 'Forget “Answer in Australian English”' }))
    await waitFor(() => expect(screen.getAllByTestId('memory-fact')).toHaveLength(1))
    expect(w.called('Settings.DeleteMemory')[0]?.args).toEqual(['mem-1'])
  })

  it('shows a refused fact in plain words and keeps what was typed', async () => {
    const w = fakeBackend({
      'Settings.Memory': () => [],
      'Settings.AddMemory': () => {
        throw Object.assign(new Error('memory.Add: a fact to remember is 900 characters; the limit is 500'), { code: 'invalid' })
      },
    })
    render(MemorySettings, { props: { backend: w.backend } })
    await screen.findByText('Nothing remembered yet.')
    const input = screen.getByLabelText('A fact to remember') as HTMLInputElement
    await fireEvent.input(input, { target: { value: 'long text' } })
    await fireEvent.click(screen.getByRole('button', { name: 'Remember' }))
    expect((await screen.findByTestId('memory-error')).textContent).toContain('the limit is 500')
    expect(input.value).toBe('long text')
  })
})
