import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { startApp } from './helpers/app.ts'

// Debian's chromium, never a downloaded browser: `apt-get install -y chromium`.
const CHROMIUM = '/usr/bin/chromium'
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]
const OUTPUT = fileURLToPath(new URL('../../../test-output/', import.meta.url))

/** What the test reads of an operation's block in the page (the project is typed without the DOM library). */
interface OperationBlock {
  id: string
  classList: { contains(token: string): boolean }
  querySelector(selector: string): { textContent: string | null; getAttribute(name: string): string | null } | null
}

function chromiumSkip(): string | false {
  if (existsSync(CHROMIUM)) return false
  const reason = `${CHROMIUM} is missing (apt-get install -y chromium)`
  if (process.env.CI === 'true') throw new Error(`the docs page must be checked in a browser under CI=true, but ${reason}`)
  process.stderr.write(`\n!!! SKIPPING the /docs browser test: ${reason}\n\n`)
  return reason
}

describe('/docs in a real browser', { skip: chromiumSkip() }, () => {
  test('renders every operation, marks getPet deprecated, and loads nothing from another origin', async (t) => {
    const app = await startApp(t)
    const profile = mkdtempSync(join(tmpdir(), 'animal-store-chromium-'))
    const removeProfile = () => rmSync(profile, { recursive: true, force: true })
    const context = await chromium
      .launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
        viewport: { width: 1280, height: 1400 }
      })
      .catch((error: unknown) => {
        removeProfile()
        throw error
      })
    // Chromium writes its profile as it exits: the folder goes only once the browser has closed.
    t.after(async () => {
      await context.close()
      removeProfile()
    })

    const requests: string[] = []
    const problems: string[] = []
    context.on('request', (request) => requests.push(request.url()))
    const page = await context.newPage()
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
    // A load the CSP blocks never becomes a request, but it does log an error.
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`)
    })
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText ?? ''}`))

    const response = await page.goto(`${app.origin}/docs`, { waitUntil: 'networkidle' })
    assert.equal(response?.status(), 200)
    await page.locator('.opblock').first().waitFor({ timeout: 15_000 })

    const operations = await page.locator('.opblock').evaluateAll((blocks: OperationBlock[]) =>
      blocks.map((block) => ({
        id: block.id,
        method: block.querySelector('.opblock-summary-method')?.textContent?.trim(),
        path: block.querySelector('.opblock-summary [data-path]')?.getAttribute('data-path'),
        deprecated: block.classList.contains('opblock-deprecated')
      }))
    )
    assert.deepEqual(operations, [
      { id: 'operations-Pets-listPets', method: 'GET', path: '/pets', deprecated: false },
      { id: 'operations-Pets-createPet', method: 'POST', path: '/pets', deprecated: false },
      { id: 'operations-Pets-getPet', method: 'GET', path: '/pets/{petId}', deprecated: true },
      { id: 'operations-Rate_limits-getRateLimit', method: 'GET', path: '/rate_limit', deprecated: false }
    ])
    assert.match(await page.locator('.info .title').innerText(), /Animal Store API/)

    mkdirSync(OUTPUT, { recursive: true })
    await page.screenshot({ path: join(OUTPUT, 'docs.png'), fullPage: true })

    const foreign = requests.filter((url) => !url.startsWith(`${app.origin}/`) && !url.startsWith('data:'))
    assert.deepEqual(foreign, [], 'every resource comes from the service itself')
    assert.ok(requests.includes(`${app.origin}/v1/openapi.json`), requests.join('\n'))
    assert.ok(requests.includes(`${app.origin}/docs/swagger-ui-bundle.js`), requests.join('\n'))
    assert.deepEqual(problems, [])
  })
})
