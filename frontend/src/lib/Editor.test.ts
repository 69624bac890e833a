import { fireEvent, render, screen, waitFor } from '@testing-library/svelte'
import { describe, expect, it, vi } from 'vitest'
import Editor from './Editor.svelte'
import { ChatState } from './chat.svelte'
import { fakeBackend } from './fake'
import type { Hunk, WaitingProposal } from './types'
import { resetBetweenTests } from './testreset'

const hunk: Hunk = { index: 0, kind: 'replace', old_start: 0, old_end: 1, new_start: 0, new_end: 1, old_lines: ['Dear all,\n'], new_lines: ['Dear colleagues,\n'], old_spans: [[0, 1]], new_spans: [[0, 1]] }
const fresh: WaitingProposal = { token: 't1', draft_id: 'draft-1', draft_title: 'Letter', file: 'letter.md', base_hash: 'h', summary: 'warmer greeting', hunks: [hunk], stale: false }
const stale: WaitingProposal = { ...fresh, token: 't2', summary: 'casual', stale: true }

function world() {
  let waiting = [fresh, stale]
  let aside: WaitingProposal[] = []
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
    'Editor.DiscardAll': (tokens: string[]) => {
      aside = waiting.filter((p) => tokens.includes(p.token))
      waiting = waiting.filter((p) => !tokens.includes(p.token))
      return { batch: 'b'.repeat(32), count: aside.length }
    },
    'Editor.UndoDiscard': () => {
      waiting = [...waiting, ...aside]
      const n = aside.length
      aside = []
      return n
    },
  })
  return fake
}

const props = (w: ReturnType<typeof fakeBackend>) => ({ backend: w.backend, chat: new ChatState(w.backend), request: null, onCopy: () => {}, onOpenChat: () => {} })

resetBetweenTests()

describe('the drafts editor', () => {
  it('lists the proposals waiting for review on start, stale ones without Review', async () => {
    const w = world()
    render(Editor, { props: props(w) })
    const items = await screen.findAllByTestId('waiting-proposal')
    expect(items.length).toBe(2)
    expect(items[0].textContent).toContain('Letter')
    expect(items[0].textContent).toContain('warmer greeting')
    expect(items[1].textContent).toContain('can no longer be applied')
    expect(items[1].querySelector('[data-testid=review-waiting]')).toBeNull()
  })

  it('opens a waiting proposal for review and applies the accepted hunks', async () => {
    const w = world()
    render(Editor, { props: props(w) })
    await fireEvent.click((await screen.findAllByTestId('review-waiting'))[0])
    await screen.findByText(/Reviewing 1 change/)
    expect(w.called('Editor.Proposal')[0].args).toEqual(['t1'])
    await fireEvent.click(screen.getByText('Accept all'))
    await waitFor(() => expect(w.called('Editor.Apply')[0]?.args).toEqual(['t1', [0]]))
    await waitFor(() => expect(screen.getAllByTestId('waiting-proposal').length).toBe(1))
  })

  it('discards a waiting proposal', async () => {
    const w = world()
    render(Editor, { props: props(w) })
    const items = await screen.findAllByTestId('waiting-proposal')
    await fireEvent.click(items[1].querySelector('button')!)
    await waitFor(() => expect(w.called('Editor.Discard')[0]?.args).toEqual(['t2']))
    await waitFor(() => expect(screen.getAllByTestId('waiting-proposal').length).toBe(1))
  })

  it('discards every waiting proposal after a confirmation, and undoes it', async () => {
    const w = world()
    render(Editor, { props: props(w) })
    await fireEvent.click(await screen.findByTestId('discard-all'))
    const dialog = await screen.findByTestId('discard-all-dialog')
    expect(dialog.textContent).toContain('Discard all 2 waiting proposals?')
    await fireEvent.click(screen.getByText('Cancel'))
    expect(w.called('Editor.DiscardAll')).toHaveLength(0)
    expect(screen.getAllByTestId('waiting-proposal').length).toBe(2)

    await fireEvent.click(screen.getByTestId('discard-all'))
    await fireEvent.click(dialog.ownerDocument.querySelector('[data-testid=discard-all-dialog] .danger')!)
    await waitFor(() => expect(w.called('Editor.DiscardAll')[0]?.args).toEqual([['t1', 't2']]))
    await waitFor(() => expect(screen.queryAllByTestId('waiting-proposal').length).toBe(0))
    expect(screen.getByRole('status').textContent).toContain('Discarded 2 proposals; no file changed.')

    await fireEvent.click(screen.getByTestId('undo-discard'))
    await waitFor(() => expect(w.called('Editor.UndoDiscard')[0]?.args).toEqual(['b'.repeat(32)]))
    await waitFor(() => expect(screen.getAllByTestId('waiting-proposal').length).toBe(2))
    expect(screen.getByRole('status').textContent).toContain('2 proposals waiting for review again.')
    expect(screen.queryByTestId('undo-discard')).toBeNull()
  })
})

describe('tabs, compiles and the file manager', () => {
  // One draft with a .tex file; the tab opens with unsaved text kept from
  // before a reload (local storage), so it is dirty from the start.
  function texWorld(render: () => unknown) {
    localStorage.setItem('jarvis.unsavedDrafts', JSON.stringify({ 'draft-1/paper.tex': { text: '\\foo\n', hash: 'h' } }))
    localStorage.setItem('jarvis.editorTabs', JSON.stringify([{ draft: 'draft-1', file: 'paper.tex' }]))
    return fakeBackend({
      'Editor.Drafts': () => [{ id: 'draft-1', title: 'Paper', visibility: 'public', main_file: 'paper.tex', files: ['paper.tex'], keep: false, path: '/home/ada/.jarvis/drafts/draft-1', days_left: 12 }],
      'Editor.Tools': () => ({ latex: true, pandoc: false }),
      'Editor.Waiting': () => [],
      'Editor.Open': () => ({ draft: 'draft-1', file: 'paper.tex', text: 'saved\n', hash: 'h' }),
      'Editor.Versions': () => [],
      'Editor.Save': () => 'h2',
      'Editor.Render': render,
      'Editor.Reveal': () => null,
    })
  }

  it('asks before closing a tab with unsaved text; Discard closes it without saving', async () => {
    const w = texWorld(() => null)
    render(Editor, { props: props(w) })
    const tab = await screen.findByTestId('tab')
    expect(tab.textContent).toContain('•')
    await fireEvent.click(screen.getByTestId('close-tab'))
    const dialog = await screen.findByTestId('close-dialog')
    expect(dialog.textContent).toContain('Save the changes to paper.tex?')
    await fireEvent.click(screen.getByText('Discard'))
    await waitFor(() => expect(screen.queryByTestId('tab')).toBeNull())
    expect(w.called('Editor.Save')).toEqual([])
    expect(JSON.parse(localStorage.getItem('jarvis.unsavedDrafts')!)).toEqual({})
    expect(JSON.parse(localStorage.getItem('jarvis.editorTabs')!)).toEqual([])
  })

  it('saves before closing when asked to', async () => {
    const w = texWorld(() => null)
    render(Editor, { props: props(w) })
    await screen.findByTestId('tab')
    await fireEvent.click(screen.getByTestId('close-tab'))
    const dialog = await screen.findByTestId('close-dialog')
    await fireEvent.click(dialog.querySelector('button.primary')!)
    await waitFor(() => expect(screen.queryByTestId('tab')).toBeNull())
    expect(w.called('Editor.Save')[0].args).toEqual(['draft-1', 'paper.tex', '\\foo\n', 'h'])
  })

  it('saves before compiling and shows the first error with the full log behind a disclosure', async () => {
    const w = texWorld(() => ({ ok: false, error: 'latexmk failed', log: 'the whole log', first: { message: 'Undefined control sequence.', line: 1, context: ['l.1 \\foo'] } }))
    render(Editor, { props: props(w) })
    await fireEvent.click(await screen.findByText('Compile PDF'))
    const panel = await screen.findByTestId('compile-error')
    const order = w.calls.map((c) => c.name).filter((n) => n === 'Editor.Save' || n === 'Editor.Render')
    expect(order).toEqual(['Editor.Save', 'Editor.Render'])
    expect(screen.getByTestId('first-error').textContent).toBe('Undefined control sequence.')
    expect(screen.getByTestId('error-context').textContent).toBe('l.1 \\foo')
    expect(panel.querySelector('details')!.open).toBe(false)
    expect(panel.querySelector('details')!.textContent).toContain('the whole log')
    expect(screen.getByText('Go to line 1')).toBeTruthy()
  })

  it('names the first-run font cache once a compile runs past 20 seconds', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    try {
      const w = texWorld(() => new Promise(() => {}))
      render(Editor, { props: props(w) })
      await fireEvent.click(await screen.findByText('Compile PDF'))
      await waitFor(() => expect(w.called('Editor.Render').length).toBe(1))
      await vi.advanceTimersByTimeAsync(19000)
      expect(screen.getByTestId('render-busy').textContent).toBe('Compiling… 19s')
      await vi.advanceTimersByTimeAsync(2000)
      expect(screen.getByTestId('render-busy').textContent).toMatch(/Compiling… 21s — the first run builds a font cache/)
    } finally {
      vi.useRealTimers()
    }
  })

  it('shows the days left before retention and offers reveal from the right-click menu', async () => {
    const w = texWorld(() => null)
    render(Editor, { props: props(w) })
    expect((await screen.findByTestId('days-left')).textContent).toBe('12 days left')
    await fireEvent.contextMenu(screen.getByTestId('draft-file'))
    await fireEvent.click(await screen.findByText('Show in the file manager'))
    await waitFor(() => expect(w.called('Editor.Reveal')[0]?.args).toEqual(['draft-1', 'paper.tex']))
  })
})
