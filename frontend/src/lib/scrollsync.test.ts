import { describe, expect, it } from 'vitest'
import { lineForTop, topForLine, withEnds } from './scrollsync'

describe('scroll sync', () => {
  // Three blocks: lines 1-2 at 0px, lines 3-9 (a long paragraph) at 40px, line 10 at 400px; 500px in all.
  const anchors = withEnds([{ line: 1, top: 0 }, { line: 3, top: 40 }, { line: 10, top: 400 }], 12, 500)

  it('adds the ends and keeps anchors in order', () => {
    expect(anchors).toEqual([{ line: 1, top: 0 }, { line: 3, top: 40 }, { line: 10, top: 400 }, { line: 13, top: 500 }])
    expect(withEnds([{ line: 5, top: 100 }, { line: 4, top: 120 }, { line: 6, top: 90 }, { line: 7, top: 150 }], 8, 200)).toEqual([
      { line: 1, top: 0 }, { line: 5, top: 100 }, { line: 7, top: 150 }, { line: 9, top: 200 },
    ])
  })

  it('interpolates inside a long paragraph, both ways', () => {
    expect(topForLine(3, anchors)).toBe(40)
    expect(topForLine(6.5, anchors)).toBe(220) // halfway from line 3 to 10
    expect(lineForTop(220, anchors)).toBe(6.5)
    for (const line of [1, 2.25, 4, 9.9, 11, 12.5]) expect(lineForTop(topForLine(line, anchors), anchors)).toBeCloseTo(line)
  })

  it('clamps beyond the ends', () => {
    expect(topForLine(0, anchors)).toBe(0)
    expect(topForLine(99, anchors)).toBe(500)
    expect(lineForTop(-10, anchors)).toBe(1)
    expect(lineForTop(9999, anchors)).toBe(13)
  })
})
