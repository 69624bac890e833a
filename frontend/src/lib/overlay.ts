// Overlays (dialogs, the source viewer, the quick switcher) as a stack:
// Esc closes the topmost one, Tab stays inside it, and focus goes back to
// where it was when it opened.
interface Entry {
  node: HTMLElement
  close: () => void
}

const stack: Entry[] = []

const focusable = (root: HTMLElement) =>
  Array.from(
    root.querySelectorAll<HTMLElement>('a[href], button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])'),
  ).filter((el) => !el.closest('[hidden]') && !el.closest('[inert]'))

/** Closes the topmost overlay; false when none is open. */
export function closeTopmost(): boolean {
  const top = stack.at(-1)
  if (!top) return false
  top.close()
  return true
}

export function overlayOpen(): boolean {
  return stack.length > 0
}

/** Svelte action for an overlay's box: use:overlay={close}. */
export function overlay(node: HTMLElement, close: () => void) {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
  const entry: Entry = { node, close }
  stack.push(entry)
  const autofocus = node.querySelector<HTMLElement>('[data-autofocus]')
  queueMicrotask(() => (autofocus ?? focusable(node)[0] ?? node).focus())
  const trap = (e: KeyboardEvent) => {
    if (e.key !== 'Tab') return
    const els = focusable(node)
    if (!els.length) return e.preventDefault()
    const first = els[0]
    const last = els[els.length - 1]
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault()
      last.focus()
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault()
      first.focus()
    }
  }
  node.addEventListener('keydown', trap)
  return {
    update(next: () => void) {
      entry.close = next
    },
    destroy() {
      node.removeEventListener('keydown', trap)
      const i = stack.indexOf(entry)
      if (i >= 0) stack.splice(i, 1)
      if (opener?.isConnected) opener.focus()
    },
  }
}
