// The draft preview's document: the draft rendered (markdown.ts) with the
// window's own stylesheet and KaTeX's, so it follows the colour scheme.
import appCSS from '../app.css?inline'
import katexCSS from 'katex/dist/katex.min.css?inline'
import { renderMarkdown } from './markdown'

export function previewDocument(markdown: string): string {
  const body = renderMarkdown(markdown, { lines: true })
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Preview</title><style>${appCSS}${katexCSS}body{padding:16px 24px;overflow:auto}</style></head><body><main class="md">${body}</main></body></html>`
}
