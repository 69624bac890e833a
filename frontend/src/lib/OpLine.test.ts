import { cleanup, render, screen } from '@testing-library/svelte'
import { afterEach, describe, expect, it } from 'vitest'
import OpLine from './OpLine.svelte'
import { fakeBackend } from './fake'
import type { Op } from './types'

afterEach(() => cleanup())

const running = (stage: string, done: number, total: number): Op =>
  ({ op_id: 'op1', kind: 'add', title: 'scan.pdf', seq: 1, stage, done, total, state: 'running' }) as Op

describe('an operation line', () => {
  it('shows a count as a filled bar and a stage without one as a moving bar', () => {
    const { backend } = fakeBackend({})
    const { unmount } = render(OpLine, { props: { op: running('recognising page 2 of 4 (OCR)', 2, 4), backend } })
    let bar = screen.getByRole('progressbar', { name: 'scan.pdf progress' }) as HTMLProgressElement
    expect(bar.value).toBe(2)
    expect(bar.max).toBe(4)
    expect(screen.getByText(/recognising page 2 of 4 \(OCR\) 2\/4/)).toBeTruthy()
    unmount()

    // After the pages, "embedding" has no count: no value, so the bar
    // neither empties nor runs back to "2 of 3".
    render(OpLine, { props: { op: running('embedding', 0, 0), backend } })
    bar = screen.getByRole('progressbar', { name: 'scan.pdf progress' }) as HTMLProgressElement
    expect(bar.hasAttribute('value')).toBe(false)
    expect(screen.getByText(/embedding$/)).toBeTruthy()
  })
})
