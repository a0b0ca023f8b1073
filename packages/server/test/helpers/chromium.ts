import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

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

/** A `skip` for browser suites: the reason when Chromium is missing (loudly), false when it is there; under CI=true a missing browser fails. */
export function chromiumSkip(what: string): string | false {
  if (existsSync(CHROMIUM)) return false
  const reason = `${CHROMIUM} is missing (apt-get install -y chromium)`
  if (process.env.CI === 'true') throw new Error(`${what} must be checked in a browser under CI=true, but ${reason}`)
  process.stderr.write(`\n!!! SKIPPING ${what} in a browser: ${reason}\n\n`)
  return reason
}

type ContextOptions = NonNullable<Parameters<typeof chromium.launchPersistentContext>[1]>

/** Chromium with a fresh profile, closed and removed when the test ends. */
export async function openChromium(
  t: TestContext,
  options: Omit<ContextOptions, 'executablePath' | 'headless' | 'args'>
): Promise<BrowserContext> {
  const profile = mkdtempSync(join(tmpdir(), 'animal-store-chromium-'))
  const removeProfile = () => rmSync(profile, { recursive: true, force: true })
  const context = await chromium
    .launchPersistentContext(profile, { ...options, executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
    .catch((error: unknown) => {
      removeProfile()
      throw error
    })
  // Chromium writes its profile as it exits: the folder goes only once the browser has closed.
  t.after(async () => {
    await context.close()
    removeProfile()
  })
  return context
}

/** Every request the browser makes, and what the page logs as an error (a load the CSP refuses is logged, never requested). */
export function watch(context: BrowserContext, page: Page) {
  const requests: string[] = []
  const problems: string[] = []
  context.on('request', (request) => requests.push(request.url()))
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`)
  })
  page.on('dialog', (dialog) => problems.push(`a ${dialog.type()} dialog opened: ${dialog.message()}`))
  return { requests, problems }
}
