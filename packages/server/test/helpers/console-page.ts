import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { TestContext } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import { openChromium, watch } from './chromium.ts'
import { recordIssuedKey } from './logs.ts'
import { until } from './wait.ts'

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[] }[]
}

/**
 * Runs axe-core on the page as it is now and fails on any serious or critical finding. The
 * source goes in through the DevTools protocol (page.evaluate), which the page's CSP does not
 * govern: a script tag would be refused, as it should be.
 */
export async function assertAccessible(page: Page, screen: string): Promise<void> {
  await page.evaluate(AXE_SOURCE)
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: AxeViolation[] }> } })
      .axe
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] })
    return result.violations.map(({ id, impact, help, nodes }) => ({ id, impact, help, nodes: nodes.map(({ target }) => ({ target })) }))
  })
  const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
  assert.deepEqual(
    serious.map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`
    ),
    [],
    `axe-core on ${screen}`
  )
}

/** The text of the element that has the keyboard focus. */
export function focusedText(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const document = (globalThis as unknown as { document: { activeElement: { textContent: string | null } | null } }).document
    return document.activeElement?.textContent?.trim()
  })
}

export async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Operator token').fill(token)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor()
}

/** The row of a table whose link is named `name` exactly (a key's row, by the key's name). */
export function rowLinking(table: Locator, name: string): Locator {
  return table.getByRole('row').filter({ has: table.page().getByRole('link', { name, exact: true }) })
}

/** The totals of a usage chart's legend, as a screen reader reads them with the chart. */
export async function chartTotals(chart: Locator): Promise<Record<string, number>> {
  const description = await chart.getAttribute('aria-describedby')
  assert.ok(description !== null, 'the chart is described by its legend')
  const items = await chart
    .page()
    .locator(`[id="${description}"] li[data-series]`)
    .evaluateAll((nodes: { dataset: Record<string, string | undefined> }[]) =>
      nodes.map((node) => [node.dataset.series ?? '', Number(node.dataset.total)] as const)
    )
  return Object.fromEntries(items)
}

/** Clicks Refresh until `check` holds: the page shows what the API knows after a flush, with no fixed sleep. */
export async function refreshUntil(page: Page, check: () => Promise<boolean>, what: string, timeoutMs = 40_000): Promise<void> {
  await until(
    async () => {
      if (await check()) return true
      await page.getByRole('button', { name: 'Refresh', exact: true }).click()
      return false
    },
    { timeoutMs, intervalMs: 500, what }
  )
}

/** RFC 4180 records: quoted fields may hold commas, quotes (doubled) and line breaks. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = []
  let record: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (char === '"') quoted = false
      else field += char
    } else if (char === '"') quoted = true
    else if (char === ',') {
      record.push(field)
      field = ''
    } else if (char === '\r' && text[i + 1] === '\n') {
      record.push(field)
      records.push(record)
      record = []
      field = ''
      i++
    } else field += char
  }
  assert.equal(field + record.join(''), '', 'the CSV ends with CRLF')
  return records
}

/** Clicks a table's "Export CSV" and reads the file the browser saved. */
export async function exportCsv(page: Page, scope: Locator | Page = page): Promise<{ name: string; records: string[][] }> {
  const [download] = await Promise.all([page.waitForEvent('download'), scope.getByRole('button', { name: 'Export CSV' }).click()])
  const path = await download.path()
  return { name: download.suggestedFilename(), records: parseCsv(readFileSync(path, 'utf8')) }
}

/** Chromium on the console at `origin` (UTC, en-GB), with every request it makes and every error it logs. */
export async function openConsole(t: TestContext, origin: string, viewport = { width: 1280, height: 800 }) {
  const context = await openChromium(t, { viewport, timezoneId: 'UTC', locale: 'en-GB' })
  const page = context.pages()[0] ?? (await context.newPage())
  const watched = watch(context, page)
  assert.equal((await page.goto(`${origin}/`))?.status(), 200)
  return { page, ...watched }
}

/** Clicks "Create" in the open Create key dialog, records the secret shown once, and closes it with "Done". */
export async function createKeyInDialog(page: Page): Promise<void> {
  const dialog = page.getByRole('dialog')
  await dialog.getByRole('button', { name: 'Create' }).click()
  await dialog.getByText('shown once').waitFor()
  recordIssuedKey(await dialog.getByRole('textbox', { name: 'Secret' }).inputValue())
  await dialog.getByRole('button', { name: 'Done' }).click()
  await dialog.waitFor({ state: 'detached' })
}

/** How wide the page is: wider than the viewport, it scrolls sideways. */
export function pageWidth(page: Page): Promise<number> {
  return page.evaluate(
    () => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth
  )
}
