// End-to-end tests: the built frontend in headless Chromium, talking to the
// real Go services through the test bridge (app/bridge/jarvis-bridge -demo:
// a seeded vault, ONNX fixture models, and a local model server speaking
// Ollama's streaming protocol). Usage: node e2e/run.mjs BRIDGE_BINARY DIST [SCREENSHOT_DIR]
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { chromium } from 'playwright-core'

const [bridgeBin, dist, shots = 'e2e-shots'] = process.argv.slice(2)
mkdirSync(shots, { recursive: true })

const bridge = spawn(bridgeBin, ['-demo', '-addr', '127.0.0.1:0', '-dist', dist], { stdio: ['ignore', 'pipe', 'inherit'] })
const base = await new Promise((resolve, reject) => {
  bridge.stdout.on('data', (d) => {
    const m = String(d).match(/listening on (http:\/\/\S+)/)
    if (m) resolve(m[1])
  })
  bridge.on('exit', (code) => reject(new Error('bridge exited with ' + code)))
  setTimeout(() => reject(new Error('bridge did not start')), 60000)
})

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})
const page = await browser.newPage({ viewport: { width: 1280, height: 860 } })
page.setDefaultTimeout(15000)

let passed = 0
let failed = 0
async function test(name, fn) {
  try {
    await fn()
    passed++
    console.log('ok   ', name)
  } catch (e) {
    failed++
    console.log('FAIL ', name, '\n     ', String(e?.message ?? e).split('\n')[0])
    await page.screenshot({ path: `${shots}/fail-${passed + failed}.png` }).catch(() => {})
  }
}
// expectText waits until the locator shows text matching re.
const expectText = async (locator, re) => {
  try {
    await locator.filter({ hasText: re }).first().waitFor()
  } catch (e) {
    const t = await locator.first().textContent().catch(() => '(nothing)')
    throw new Error(`expected ${re}, saw ${JSON.stringify(t)}`)
  }
}
const lastReply = (re) => page.getByTestId('message-assistant').filter({ hasText: re })
async function ask(text) {
  const box = page.getByLabel('Message')
  await box.fill(text)
  await box.press('Enter')
}

await page.goto(base)

await test('the header shows the configured model', async () => {
  await page.getByRole('button', { name: 'Start a chat' }).click()
  await page.waitForFunction(() => document.querySelector('[aria-label="Model"]')?.value === 'ollama:demo')
})

await test('a question streams a tool event and a cited reply; invented sources are dropped', async () => {
  await ask('how should I water my tomatoes')
  const reply = page.getByTestId('message-assistant').last()
  await expectText(reply, /From your notes/)
  const text = await reply.textContent()
  if (/invented\/paper\.md/.test(text)) throw new Error('an invented citation reached the user: ' + text)
  await expectText(page.getByTestId('citation').first(), /tomatoes/)
  await page.getByTestId('citation').first().click()
  await expectText(page.getByTestId('viewer'), /full sun and deep watering/)
  await page.screenshot({ path: `${shots}/chat.png` })
  await page.getByRole('button', { name: 'Close' }).click()
})

await test('a session that read a private note says so and keeps it in the sidebar', async () => {
  await expectText(page.locator('header'), /private/)
  await expectText(page.getByTestId('session').first(), /private/)
})

await test('Stop returns the composer at once and keeps the question', async () => {
  await ask('please be slow')
  await expectText(page.getByTestId('live'), /word word/) // the reply streams in as it is written
  await page.getByRole('button', { name: 'Stop' }).click()
  await page.waitForFunction(() => document.querySelector('[aria-label="Message"]')?.value === 'please be slow', null, { timeout: 1500 })
  await page.getByRole('button', { name: 'Send' }).waitFor()
  const bubbles = await page.getByTestId('message-assistant').count()
  await page.waitForTimeout(800)
  if ((await page.getByTestId('message-assistant').count()) !== bubbles) throw new Error('a stopped turn produced a reply')
  await page.getByLabel('Message').fill('')
})

await test('a removal asks the human; "Keep" keeps the note', async () => {
  await ask('remove the roses note')
  const dialog = page.getByTestId('confirm')
  await expectText(dialog, /never touched/)
  await dialog.getByRole('button', { name: 'Keep' }).click()
  await expectText(lastReply(/declined/), /declined/)
})

await test('the library lists notes and removes one only after two clicks', async () => {
  await page.getByRole('button', { name: 'Library' }).click()
  await page.getByRole('button', { name: 'Notes & records' }).click()
  const roses = page.getByTestId('doc').filter({ hasText: 'garden/roses.md' })
  await roses.waitFor()
  await roses.getByRole('button', { name: 'Remove' }).click()
  await expectText(page.getByTestId('remove-dialog'), /never touched/)
  await page.getByRole('button', { name: 'Remove from the knowledge base' }).click()
  await page.getByText('Removed 1 chunks.').waitFor()
  if (await roses.count()) throw new Error('roses still listed')
  await page.getByLabel('Search').fill('tomato watering')
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  await expectText(page.getByTestId('hit').first(), /tomatoes/)
})

await test('the library adds a PDF as an operation with progress, and syncs the vault', async () => {
  const pdf = resolve('../backend/pdf/testdata/annotated.pdf')
  await page.getByLabel('File to add').fill(pdf)
  await page.getByRole('button', { name: 'Add', exact: true }).click()
  await expectText(page.getByTestId('op'), /paper "Sparse Attention for Long Documents": \d+ chunks \(full_text, 4 annotations/)
  await page.getByRole('button', { name: 'Papers' }).click()
  await expectText(page.getByTestId('doc'), /Sparse Attention for Long Documents/)
  await page.getByRole('button', { name: 'Sync vault now' }).click()
  await expectText(page.getByTestId('op'), /Vault sync: done/)
  await page.getByLabel('File to add').fill(resolve('../backend/pdf/testdata/scanned.pdf'))
  await page.getByRole('button', { name: 'Add', exact: true }).click()
  await expectText(page.getByTestId('op'), /no text layer.*OCR/)
})

await test('settings: response style saves, a prompt reverts to its default', async () => {
  await page.getByRole('button', { name: 'Settings' }).click()
  await page.getByLabel('Response style').fill('Be brief.')
  await page.getByRole('button', { name: 'Save', exact: true }).click()
  await page.getByText('Response style saved.').waitFor()
  const area = page.getByLabel('Prompt text')
  const original = await area.inputValue()
  await area.fill('my own prompt')
  await page.getByRole('button', { name: 'Save prompt' }).click()
  await page.getByText(/\(edited\)/).first().waitFor()
  await page.getByRole('button', { name: 'Revert to default' }).click()
  await page.waitForFunction((o) => document.querySelector('[aria-label="Prompt text"]')?.value === o, original)
})

await test('drafts: the agent writes a draft, proposes an edit, the human accepts one hunk in the editor', async () => {
  await page.getByRole('button', { name: 'Chat', exact: true }).click()
  await page.getByRole('button', { name: '+ New chat' }).click()
  await page.getByTestId('session').nth(1).waitFor()
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=message-assistant]').length === 0)
  await ask('write a draft letter')
  await expectText(lastReply(/Created draft/), /Created draft/)
  await ask('now edit the draft')
  await expectText(lastReply(/review/i), /review/i)
  await page.getByRole('button', { name: 'Drafts' }).click()
  await page.getByRole('button', { name: 'letter.md' }).click()
  await page.getByTestId('review').click()
  const hunks = page.getByTestId('hunk')
  await hunks.first().waitFor()
  const n = await hunks.count()
  if (n < 1) throw new Error('no hunks shown')
  const editable = await page.locator('.cm-content').getAttribute('contenteditable')
  if (editable !== 'false') throw new Error('the editor must be read-only during review')
  await page.screenshot({ path: `${shots}/review.png` })
  await hunks.first().getByRole('button', { name: 'Accept' }).click()
  for (let i = 1; i < n; i++) await page.getByTestId('hunk').nth(i).getByRole('button', { name: 'Reject' }).click()
  await page.getByText(/Applied 1 of/).waitFor()
  await expectText(page.locator('.cm-content'), /Dear colleagues/)
  const after = await page.locator('.cm-content').textContent()
  if (n > 1 && /Best wishes/.test(after)) throw new Error('a rejected hunk was applied')
  await page.getByRole('button', { name: 'Preview' }).click()
  const frame = page.getByTestId('preview')
  if ((await frame.getAttribute('sandbox')) !== '') throw new Error('preview frame may run scripts')
})

await test('drafts: the human starts a draft, types and saves it', async () => {
  await page.getByLabel('Draft title').fill('My notes')
  await page.getByLabel('Draft file').fill('mine.md')
  await page.getByRole('button', { name: 'New draft' }).click()
  await page.getByTestId('tab').filter({ hasText: 'mine.md' }).waitFor()
  await page.locator('.cm-content').click()
  await page.keyboard.type('# Mine\n\nWritten by hand.')
  await expectText(page.getByTestId('tab').filter({ hasText: 'mine.md' }), /•/)
  await page.getByRole('button', { name: 'Save', exact: true }).click()
  await page.getByText('Saved mine.md.').waitFor()
})

await test('the sync panel reads the status file', async () => {
  await page.getByRole('button', { name: 'Sync' }).click()
  await expectText(page.getByTestId('sync'), /never run|running|not running/)
})

await browser.close()
bridge.kill()
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
