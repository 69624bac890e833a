import { describe, expect, it } from 'vitest'
import { renderMarkdown, streamingText } from './markdown'

describe('renderMarkdown', () => {
  it('keeps one-line display maths and the text after it', () => {
    const html = renderMarkdown('$$E = mc^2$$ and more text\n\nnext paragraph')
    expect(html).toContain('katex-display')
    expect(html).toContain('and more text')
    expect(html).toMatch(/<p>next paragraph<\/p>/)
    expect(html.match(/class="katex"/g)).toHaveLength(1)
  })

  it('typesets inline and block maths but leaves money alone', () => {
    const html = renderMarkdown('Inline $a^2$ here, costs $5 and $10.\n\n$$\n\\frac{a}{b}\n$$\n\nafter \\(x\\)')
    expect(html).toContain('costs $5 and $10.')
    expect(html).toContain('<div class="math-block">')
    expect(html.match(/class="katex"/g)).toHaveLength(3) // a^2, the fraction, x
    expect(html).toContain('<p>after')
  })

  it('shows maths it cannot read as its source', () => {
    expect(renderMarkdown('$$\\frac{a}{$$')).toContain('katex-error')
  })

  it('escapes raw HTML, keeps unsafe links as text and never loads images', () => {
    const html = renderMarkdown('<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1)) ![pic](https://evil.example/p.png?secret)')
    expect(html).not.toContain('<script')
    expect(html).not.toContain('<img')
    expect(html).not.toContain('href="javascript:')
    expect(html).toContain('&lt;script&gt;')
    expect(html).toContain('[image: pic]')
  })

  it('gives links their address as a hover title', () => {
    expect(renderMarkdown('[Wails](https://wails.io/docs)')).toContain('<a href="https://wails.io/docs" title="https://wails.io/docs" rel="noreferrer">Wails</a>')
  })

  it('turns citation markers into numbered references and drops unknown ones', () => {
    const citations = [{ source: 'garden/tomatoes.md', title: 'tomatoes', file_path: 'garden/tomatoes.md' }, { source: 'file:///p.pdf', title: 'Paper', page: 3 }]
    const html = renderMarkdown('Water deeply [source: garden/tomatoes.md]. See [source: file:///p.pdf, p.3] and [source: invented.md].', { citations })
    expect(html).not.toContain('[source:')
    expect(html).toContain('deeply<sup class="ref"><button type="button" data-cite="0"')
    expect(html).toContain('data-cite="1" title="Paper, page 3"')
    expect(html).toContain('and.</p>')
  })

  it('wraps code in a block with a copy button, and anchors blocks to source lines on request', () => {
    const html = renderMarkdown('# T\n\ntext\n\n```go\nx := 1\n```\n', { lines: true })
    expect(html).toContain('<h1 data-line="1">')
    expect(html).toContain('<p data-line="3">')
    expect(html).toContain('<div class="code" data-line="5"><button type="button" class="copy" data-copy')
    expect(html).toContain('<code class="language-go">x := 1')
  })

  it('hides a citation marker that is still streaming in', () => {
    expect(streamingText('Water deeply [source: garden/tom')).toBe('Water deeply ')
    expect(streamingText('Water deeply [')).toBe('Water deeply ')
    expect(streamingText('a [link](x)')).toBe('a [link](x)')
  })
})
