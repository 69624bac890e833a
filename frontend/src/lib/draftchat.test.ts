import { describe, expect, it } from 'vitest'
import { withoutDraftContext } from './draftchat'

describe('the docked conversation', () => {
  it('shows a message without the line that names the draft', () => {
    expect(withoutDraftContext('[Editing draft draft-0a1b2c3d4e5f "Grant \\"letter\\"", file letter.md]\n\ntighten the opening')).toBe('tighten the opening')
    expect(withoutDraftContext('[Editing draft draft-1 "x", file a.tex]\n\n[not] this')).toBe('[not] this')
  })
  it('leaves other messages alone', () => {
    expect(withoutDraftContext('[Editing draft is fun]\n\nhi')).toBe('[Editing draft is fun]\n\nhi')
    expect(withoutDraftContext('plain')).toBe('plain')
  })
})
