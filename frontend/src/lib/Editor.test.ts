import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import Editor from './Editor.svelte'
import { fakeBackend } from './fake'
import { notices } from './notices.svelte'
import type { Hunk, WaitingProposal } from './types'

const hunk: Hunk = { index: 0, kind: 'replace', old_start: 0, old_end: 1, new_start: 0, new_end: 1, old_lines: ['Dear all,\n'], new_lines: ['Dear colleagues,\n'], old_spans: [[0, 1]], new_spans: [[0, 1]] }
const fresh: WaitingProposal = { token: 't1', draft_id: 'draft-1', draft_title: 'Letter', file: 'letter.md', base_hash: 'h', summary: 'warmer greeting', hunks: [hunk], stale: false }
const stale: WaitingProposal = { ...fresh, token: 't2', summary: 'casual', stale: true }

function world() {
  let waiting = [fresh, stale]
  const fake = fakeBackend({
    'Editor.Drafts': () => [{ id: 'draft-1', title: 'Letter', visibility: 'public', main_file: 'letter.md', files: ['letter.md'], keep: false }],
    'Editor.Tools': () => ({ latex: false, pandoc: false }),
    'Editor.Waiting': () => waiting,
    'Editor.Open': () => ({ draft: 'draft-1', file: 'letter.md', text: 'Dear all,\n', hash: 'h' }),
    'Editor.Versions': () => [],
    'Editor.Proposals': () => waiting.filter((p) => !p.stale),
    'Editor.Proposal': (token: string) => waiting.find((p) => p.token === token),
    'Editor.Apply': (token: string) => {
      waiting = waiting.filter((p) => p.token !== token)
      return 'h2'
    },
    'Editor.Discard': (token: string) => {
      waiting = waiting.filter((p) => p.token !== token)
      return null
    },
  })
  return fake
}

beforeEach(() => {
  localStorage.clear()
  notices.clear()
})
afterEach(() => cleanup())

describe('the drafts editor', () => {
  it('lists the proposals waiting for review on start, stale ones without Review', async () => {
    const w = world()
    render(Editor, { props: { backend: w.backend, request: null } })
    const items = await screen.findAllByTestId('waiting-proposal')
    expect(items.length).toBe(2)
    expect(items[0].textContent).toContain('Letter')
    expect(items[0].textContent).toContain('warmer greeting')
    expect(items[1].textContent).toContain('can no longer be applied')
    expect(items[1].querySelector('[data-testid=review-waiting]')).toBeNull()
  })

  it('opens a waiting proposal for review and applies the accepted hunks', async () => {
    const w = world()
    render(Editor, { props: { backend: w.backend, request: null } })
    await fireEvent.click((await screen.findAllByTestId('review-waiting'))[0])
    await screen.findByText(/Reviewing 1 change/)
    expect(w.called('Editor.Proposal')[0].args).toEqual(['t1'])
    await fireEvent.click(screen.getByText('Accept all'))
    await waitFor(() => expect(w.called('Editor.Apply')[0]?.args).toEqual(['t1', [0]]))
    await waitFor(() => expect(screen.getAllByTestId('waiting-proposal').length).toBe(1))
  })

  it('discards a waiting proposal', async () => {
    const w = world()
    render(Editor, { props: { backend: w.backend, request: null } })
    const items = await screen.findAllByTestId('waiting-proposal')
    await fireEvent.click(items[1].querySelector('button')!)
    await waitFor(() => expect(w.called('Editor.Discard')[0]?.args).toEqual(['t2']))
    await waitFor(() => expect(screen.getAllByTestId('waiting-proposal').length).toBe(1))
  })
})
