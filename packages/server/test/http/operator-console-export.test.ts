import assert from 'node:assert/strict'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import type { Customer, Key } from '@animal-store/contract'
import type { Page, Route } from 'playwright-core'
import { startApp, type TestApp } from '../helpers/app.ts'
import { sqliteBackend } from '../helpers/backends.ts'
import { chromiumSkip } from '../helpers/chromium.ts'
import { assertAccessible, focusedText, openConsole, pageWidth, signIn } from '../helpers/console-page.ts'
import { readAdmin, sendAdmin } from '../helpers/operator-api.ts'
import { until } from '../helpers/wait.ts'

// The Usage screen's "Export usage" (docs/design.md §8) in Chromium, against the operator
// listener serving the built console: the file saved is the billing export of the range on
// screen, widened to whole hours. EXPORT_SCREENSHOTS=<dir> saves what the operator sees there.

const HOUR = 3_600_000
const EXPORT_PATH = '/admin/v1/usage/export'

async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.EXPORT_SCREENSHOTS
  if (dir === undefined) return
  mkdirSync(dir, { recursive: true })
  await page.mouse.move(0, 0)
  await page.screenshot({ path: join(dir, name), fullPage: true })
}

/** Clicks "Export usage" and reads the file the browser saved. */
async function exportUsage(page: Page): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export usage' }).click()])
  return { name: download.suggestedFilename(), text: readFileSync(await download.path(), 'utf8') }
}

/** The export's body asked for directly, as the operator API answers it. */
async function exported(app: TestApp, token: string, url: string): Promise<{ status: number; text: string }> {
  const { pathname, search } = new URL(url)
  const response = await app.admin(pathname + search, { token })
  return { status: response.status, text: await response.text() }
}

const parsed = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)

const stamp = (ms: number) => new Date(ms).toISOString().replace('.000', '').replaceAll(':', '-')

describe('the console: usage export', { skip: chromiumSkip('the console’s usage export') }, () => {
  test('a viewer exports the range on screen as CloudEvents and as Stripe meter events', async (t) => {
    // The service's clock stands still at the browser's now: the hours seeded below have closed.
    const now = new Date()
    const app = await startApp(t, { backend: sqliteBackend, admin: true, now })
    const adminToken = await app.operator('admin')
    const viewer = await app.operator('viewer', 'Vic Viewer')
    const created = await sendAdmin(app, 'POST', '/admin/v1/customers', adminToken, {
      name: 'Billed',
      plan: 'pro',
      externalId: 'cus_Stripe7'
    })
    assert.equal(created.status, 201)
    const billed = (await created.json()) as Customer
    const billedKey = await app.keyWithId({ customerId: billed.id, name: 'Billed web' })
    const soloKey = await app.keyWithId({ name: 'Solo' })
    const solo = (await readAdmin<Key>(app, `/admin/v1/keys/${soloKey.id}`, viewer)).customerId
    const current = Math.floor(now.getTime() / HOUR) * HOUR
    await app.storage.usage.add([
      { keyId: billedKey.id, minuteStart: current - 30 * HOUR, allowed: 11, rateLimited: 0, banned: 0, quotaExceeded: 0 },
      { keyId: billedKey.id, minuteStart: current - 3 * HOUR + 60_000, allowed: 5, rateLimited: 2, banned: 1, quotaExceeded: 0 },
      { keyId: soloKey.id, minuteStart: current - 3 * HOUR + 120_000, allowed: 3, rateLimited: 0, banned: 0, quotaExceeded: 0 },
      { keyId: billedKey.id, minuteStart: current - 2 * HOUR, allowed: 7, rateLimited: 0, banned: 0, quotaExceeded: 0 },
      // The hour still open: in no export.
      { keyId: billedKey.id, minuteStart: current, allowed: 1, rateLimited: 0, banned: 0, quotaExceeded: 0 }
    ])

    const { page, requests, problems } = await openConsole(t, app.adminOrigin)
    await signIn(page, viewer)
    await page.getByRole('link', { name: 'Usage', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor()
    const format = page.getByRole('combobox', { name: 'Export format' })
    assert.equal(await format.inputValue(), 'cloudevents')
    assert.deepEqual(await format.locator('option').allInnerTexts(), ['CloudEvents (OpenMeter)', 'Stripe meter events'])
    const exportUrls = () => requests.filter((url) => url.startsWith(`${app.adminOrigin}${EXPORT_PATH}?`))

    // 24 hours (the default): whole hours from before the range's start to after now, by hour.
    const day = await exportUsage(page)
    const [dayUrl] = exportUrls()
    assert.ok(dayUrl !== undefined)
    const query = new URL(dayUrl).searchParams
    const [from, to] = [Date.parse(query.get('from') ?? ''), Date.parse(query.get('to') ?? '')]
    assert.deepEqual([query.get('granularity'), query.get('format'), from % HOUR, to % HOUR], ['hour', 'cloudevents', 0, 0])
    assert.ok(to > now.getTime() && to - now.getTime() <= HOUR + 120_000, `to ${query.get('to')} is the hour boundary after now`)
    assert.ok(to - from === 24 * HOUR || to - from === 25 * HOUR, 'the 24 hours on screen, widened to whole hours')
    assert.equal(day.name, `animal-store-usage-${stamp(from)}-${stamp(to)}-hour.ndjson`)
    const direct = await exported(app, viewer, dayUrl)
    assert.equal(direct.status, 200)
    assert.equal(day.text, direct.text, 'the file holds the bytes the API gives')
    const period = (customer: string, start: number) => `${customer}/hour/${new Date(start).toISOString()}`
    const [first, second] = [billed.id, solo].sort()
    assert.deepEqual(
      parsed(day.text).map((event) => event.id),
      [period(first!, current - 3 * HOUR), period(second!, current - 3 * HOUR), period(billed.id, current - 2 * HOUR)],
      'the hour 30 hours ago is outside the range; the open hour is left out'
    )
    const iso = (ms: number) => new Date(ms).toISOString()
    assert.deepEqual(
      parsed(day.text).find((event) => event.id === period(billed.id, current - 3 * HOUR)),
      {
        specversion: '1.0',
        type: 'animal-store.usage',
        source: app.base,
        id: period(billed.id, current - 3 * HOUR),
        subject: 'cus_Stripe7',
        time: iso(current - 2 * HOUR),
        datacontenttype: 'application/json',
        data: {
          customerId: billed.id,
          externalId: 'cus_Stripe7',
          plan: 'pro',
          from: iso(current - 3 * HOUR),
          to: iso(current - 2 * HOUR),
          allowed: 5,
          rateLimited: 2,
          banned: 1,
          quotaExceeded: 0
        }
      }
    )

    // 7 days, as Stripe meter events: the billed customer's hours only (the other has no externalId).
    await page.getByRole('group', { name: 'Range' }).getByRole('button', { name: '7 days' }).click()
    await format.selectOption({ label: 'Stripe meter events' })
    const week = await exportUsage(page)
    const weekUrl = exportUrls()[1]
    assert.ok(weekUrl !== undefined)
    const weekQuery = new URL(weekUrl).searchParams
    assert.deepEqual([weekQuery.get('granularity'), weekQuery.get('format'), weekQuery.get('to')], ['hour', 'stripe', iso(to)])
    assert.equal(week.name, `animal-store-usage-${stamp(Date.parse(weekQuery.get('from')!))}-${stamp(to)}-hour.ndjson`)
    assert.equal(week.text, (await exported(app, viewer, weekUrl)).text)
    const meterEvents = parsed(week.text)
    assert.deepEqual(
      meterEvents.map((event) => event.identifier),
      [period(billed.id, current - 30 * HOUR), period(billed.id, current - 3 * HOUR), period(billed.id, current - 2 * HOUR)]
    )
    assert.deepEqual(meterEvents[1], {
      event_name: 'animal_store_requests',
      timestamp: (current - 2 * HOUR) / 1000,
      identifier: period(billed.id, current - 3 * HOUR),
      payload: { stripe_customer_id: 'cus_Stripe7', value: '5' }
    })
    await assertAccessible(page, 'Usage, with the export')
    await screenshot(page, 'usage-export.png')

    // While it runs the button says so and takes no click; a refusal shows the API's own message.
    let held: Route | undefined
    await page.route(`${app.adminOrigin}${EXPORT_PATH}?*`, (route) => {
      held = route
    })
    await page.getByRole('button', { name: 'Export usage' }).click()
    const busy = page.getByRole('button', { name: 'Exporting…' })
    await busy.waitFor()
    assert.equal(await busy.isDisabled(), true)
    assert.equal(await focusedText(page), 'Exporting…', 'the button keeps the focus while it runs')
    await until(() => held !== undefined, { timeoutMs: 10_000, what: 'the export request' })
    const offBoundary = new URL(held!.request().url())
    offBoundary.searchParams.set('from', iso(Date.parse(offBoundary.searchParams.get('from')!) + HOUR / 2))
    await held!.continue({ url: offBoundary.href })
    const alert = page.getByRole('alert')
    await alert.waitFor()
    const refused = await exported(app, viewer, offBoundary.href)
    assert.equal(refused.status, 400)
    assert.equal(await alert.innerText(), (JSON.parse(refused.text) as { message: string }).message, "the API's own message")
    await page.getByRole('button', { name: 'Export usage' }).waitFor()
    await page.unroute(`${app.adminOrigin}${EXPORT_PATH}?*`)
    await assertAccessible(page, 'Usage, with an export refused')
    await screenshot(page, 'usage-export-refused.png')

    // On a phone the controls wrap: once the chart has followed the width, the page never scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 })
    await until(async () => (await pageWidth(page)) <= 390, { timeoutMs: 10_000, what: 'the page to fit 390 px' })
    await screenshot(page, 'usage-export-phone.png')
    await assertAccessible(page, 'Usage, with the export (390×844)')

    assert.deepEqual(
      requests.filter((url) => !url.startsWith(`${app.adminOrigin}/`)),
      [],
      'the page asked nothing of another origin'
    )
    // The console error allowed is the browser's report of the refused export (400).
    assert.deepEqual(
      problems.filter((problem) => !/status of 400/.test(problem)),
      []
    )
  })
})
