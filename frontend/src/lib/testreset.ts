// For component tests that render the window: each test starts from an
// empty localStorage and no notices, and its DOM is removed after it.
import { cleanup } from '@testing-library/svelte'
import { afterEach, beforeEach } from 'vitest'
import { notices } from './notices.svelte'

/** Registers the reset in the calling test file; call it at top level. */
export function resetBetweenTests() {
  beforeEach(() => {
    localStorage.clear()
    notices.clear()
  })
  afterEach(() => cleanup())
}
