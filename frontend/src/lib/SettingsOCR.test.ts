import { cleanup, render, screen, waitFor } from '@testing-library/svelte'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import Settings from './Settings.svelte'
import { completeSetup, fakeBackend } from './fake'
import type { OCRView } from './types'

afterEach(() => cleanup())
beforeEach(() => localStorage.clear())

// Settings with every panel answered and OCR as the backend reports it.
function settings(ocr: OCRView) {
  const w = fakeBackend({
    'Setup.State': () => completeSetup,
    'Setup.RecommendedModels': () => [],
    'Library.Ops': () => [],
    'Settings.ResponseStyle': () => '',
    'Settings.AutoContinue': () => 1,
    'Settings.Summary': () => ['ocr: true (languages: eng+deu)'],
    'Settings.Prompts': () => [{ name: 'system_prompt', text: 'system', modified: false }],
    'Settings.Models': () => [],
    'Settings.Memory': () => [],
    'Settings.AskBeforeSending': () => false,
    'Settings.Ledger': () => [],
    'Settings.OCR': () => ocr,
  })
  render(Settings, { props: { backend: w.backend } })
  return w
}

// Settings.OCR's install hint (ocr.InstallHint) and its hint for adding a
// language, as app/settings.go sends them.
const installHint = 'install Tesseract to read scans and images: sudo apt install tesseract-ocr tesseract-ocr-eng (add tesseract-ocr-<lang> for other languages)'
const addHint = 'add a language with sudo apt install tesseract-ocr-<code> (deu, fra, chi-sim, jpn ...); [pdf] ocr_languages chooses among them'

describe('Settings → Scans and images (OCR)', () => {
  it('lists the installed languages, the ones recognition uses, and how to add one', async () => {
    const w = settings({
      available: true,
      engine: 'tesseract (/usr/bin/tesseract), languages eng+deu',
      languages: ['eng', 'deu'],
      installed: ['deu', 'eng', 'fra'],
      hint: addHint,
    })
    const panel = await screen.findByTestId('ocr')
    const text = panel.textContent ?? ''
    expect(text).toContain('Scanned pages and images are read by tesseract (/usr/bin/tesseract), languages eng+deu.')
    expect(text).toContain('Installed languages: deu, eng, fra.')
    expect(text).toContain('sudo apt install tesseract-ocr-<code>')
    expect(text).not.toContain('not read')
    expect(w.called('Settings.OCR')).toHaveLength(1)
  })

  it('says Tesseract is missing and how to install it', async () => {
    settings({
      available: false,
      languages: [],
      installed: [],
      problem: 'ocr.Lookup: Tesseract is not installed: exec: "tesseract": executable file not found in $PATH',
      hint: installHint,
    })
    const panel = await screen.findByTestId('ocr')
    const text = panel.textContent ?? ''
    expect(text).toContain('Scanned pages and images are not read: ocr.Lookup: Tesseract is not installed')
    expect(text).toContain('sudo apt install tesseract-ocr tesseract-ocr-eng')
    expect(text).not.toContain('Installed languages')
    expect(text).not.toContain('read by')
  })

  it('names a configured language that is not installed and how to get it', async () => {
    settings({
      available: false,
      languages: [],
      installed: [],
      problem: 'ocr.Lookup: OCR language "fra" is not installed (installed: eng)',
      hint: 'sudo apt install tesseract-ocr-fra, or change [pdf] ocr_languages',
    })
    await waitFor(() => expect(screen.getByTestId('ocr').textContent).toContain('OCR language "fra" is not installed (installed: eng)'))
    expect(screen.getByTestId('ocr').textContent).toContain('sudo apt install tesseract-ocr-fra, or change [pdf] ocr_languages')
  })
})
