import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte'
import { afterEach, describe, expect, it } from 'vitest'
import SyncPanel from './SyncPanel.svelte'
import { fakeBackend } from './fake'
import type { InboxFile } from './types'

afterEach(() => cleanup())

describe('the sync panel', () => {
  it('shows the inbox failures with their reason and retries one', async () => {
    let files: InboxFile[] = [
      { name: 'indexed.pdf', size: 10, state: 'indexed', title: 'A paper' },
      { name: 'scans/damaged.pdf', size: 20, state: 'failed', error: 'pdf.Open: has no pages (damaged)', at: '2026-11-30T09:00:00Z' },
      { name: 'new.pdf', size: 30, state: 'waiting' },
    ]
    const w = fakeBackend({
      'Sync.Status': () => ({ running: true, pid: 42, since: '', jobs: [] }),
      'Sync.Inbox': () => ({ dir: '/home/ada/Inbox', files }),
      'Sync.RetryInbox': (name: string) => {
        files = files.map((f) => (f.name === name ? { ...f, state: 'indexed', error: undefined } : f))
        return 'added'
      },
    })
    render(SyncPanel, { props: { backend: w.backend } })
    const failed = await screen.findByTestId('inbox-failed')
    expect(failed.textContent).toContain('scans/damaged.pdf')
    expect(failed.textContent).toContain('has no pages (damaged)')
    expect(screen.getByTestId('inbox-summary').textContent).toBe('1 failed · 1 waiting for the next scan · 1 indexed')
    expect(screen.getByTestId('inbox-waiting').textContent).toContain('new.pdf')
    await fireEvent.click(screen.getByRole('button', { name: 'Retry' }))
    await waitFor(() => expect(w.called('Sync.RetryInbox')[0]?.args).toEqual(['scans/damaged.pdf']))
    expect((await screen.findByRole('status')).textContent).toBe('scans/damaged.pdf: added.')
    await waitFor(() => expect(screen.queryByTestId('inbox-failed')).toBeNull())
    expect(screen.getByTestId('inbox-summary').textContent).toBe('0 failed · 1 waiting for the next scan · 2 indexed')
  })

  it('says nothing about an inbox that is not set up', async () => {
    const w = fakeBackend({
      'Sync.Status': () => ({ running: false, pid: 0, since: '', jobs: [] }),
      'Sync.Inbox': () => ({ dir: '', files: [] }),
    })
    render(SyncPanel, { props: { backend: w.backend } })
    await screen.findByText('The scheduler has never run.')
    await waitFor(() => expect(w.called('Sync.Inbox')).toHaveLength(1))
    expect(screen.queryByText('PDF inbox')).toBeNull()
  })

  it('says in plain words when the inbox cannot be read', async () => {
    const w = fakeBackend({
      'Sync.Status': () => ({ running: true, pid: 1, since: '', jobs: [] }),
      'Sync.Inbox': () => {
        throw Object.assign(new Error('ingest.InboxStatus: PDF inbox /home/ada/Inbox does not exist (sync.pdf_watch_dir)'), { code: 'not_found' })
      },
    })
    render(SyncPanel, { props: { backend: w.backend } })
    const problem = await screen.findByTestId('inbox-error')
    expect(problem.textContent).toContain('does not exist')
    expect(problem.textContent).not.toContain('ingest.InboxStatus')
  })
})
