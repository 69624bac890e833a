// Links never navigate the window: the desktop app has no back button, so
// a click on any link asks the runtime to open it in the system browser,
// and the page stays where it is. In-page anchors (#...) are left alone.
const external = ['http:', 'https:', 'mailto:']

/** The web address a click should open outside, or '' for none. */
export function outsideURL(href: string | null, base = location.href): string {
  if (!href || href.startsWith('#')) return ''
  try {
    const url = new URL(href, base)
    return external.includes(url.protocol) ? url.href : ''
  } catch {
    return ''
  }
}

/** Intercepts link clicks under root (a document or an element);
 * onHover reports the address under the pointer ('' when it leaves). */
export function captureLinks(root: Document | HTMLElement, open: (url: string) => void, onHover?: (url: string) => void): () => void {
  const anchor = (e: Event) => (e.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null
  const click = (e: MouseEvent) => {
    const a = anchor(e)
    if (!a || a.getAttribute('href')?.startsWith('#')) return
    e.preventDefault()
    const url = outsideURL(a.getAttribute('href'), a.baseURI)
    if (url) open(url)
  }
  const over = (e: MouseEvent) => onHover?.(outsideURL(anchor(e)?.getAttribute('href') ?? null))
  const focus = (e: FocusEvent) => onHover?.(outsideURL(anchor(e)?.getAttribute('href') ?? null))
  root.addEventListener('click', click as EventListener)
  root.addEventListener('auxclick', click as EventListener)
  root.addEventListener('mouseover', over as EventListener)
  root.addEventListener('focusin', focus as EventListener)
  return () => {
    root.removeEventListener('click', click as EventListener)
    root.removeEventListener('auxclick', click as EventListener)
    root.removeEventListener('mouseover', over as EventListener)
    root.removeEventListener('focusin', focus as EventListener)
  }
}
