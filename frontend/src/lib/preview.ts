// The draft preview's document: the draft rendered (markdown.ts) with the
// window's own stylesheet and KaTeX's, so it follows the colour scheme. The
// frame is built once per file (previewDocument); later renders replace
// only the body (previewBody), so its scroll position survives typing.
import appCSS from '../app.css?inline'
import katexCSS from 'katex/dist/katex.min.css?inline'
import { renderMarkdown } from './markdown'

export function previewBody(markdown: string): string {
  return renderMarkdown(markdown, { lines: true })
}

export function previewDocument(markdown: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Preview</title><style>${appCSS}${katexCSS}body{padding:16px 24px;overflow:auto}</style></head><body><main class="md">${previewBody(markdown)}</main></body></html>`
}
