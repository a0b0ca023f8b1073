import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test, type TestContext } from 'node:test'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { chromiumSkip, openChromium, watch } from '../helpers/chromium.ts'
import { killServes, runCli, startServe } from '../helpers/cli.ts'
import { assertAccessible, chartTotals, exportCsv, focusedText, refreshUntil, rowLinking, signIn } from '../helpers/console-page.ts'
import { recordIssuedKey } from '../helpers/logs.ts'
import { freePort, tempDir } from '../helpers/temp.ts'
import { roomInMinute, until } from '../helpers/wait.ts'

// The operator console as an operator uses it: Chromium against a real `serve` (embedded
// default, a temporary SQLite file), signed in with a token from the real CLI, with traffic sent
// over HTTP. Controls are found by role and accessible name (docs/design.md §6).

const CSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
// The README shows these two: rewritten only when asked (UPDATE_SCREENSHOTS=1), so a test run leaves the tree as it was.
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs') : join(ROOT, 'test-output')
const NAME = 'Zoo <img src=x onerror=alert(1)>'

/** The top of the page, the same size on every run, with the pointer out of the way. */
async function screenshot(page: Page, name: string, height: number): Promise<void> {
  await page.mouse.move(0, height - 1)
  await page.screenshot({ path: join(SCREENSHOTS, name), fullPage: true, clip: { x: 0, y: 0, width: 1280, height } })
}

interface Service {
  env: Record<string, string>
  api: string
  admin: string
  cli: <T>(...args: string[]) => Promise<T>
}

async function serve(t: TestContext): Promise<Service> {
  const [port, adminPort] = [await freePort(), await freePort()]
  const env = { DATABASE_URL: `sqlite:${join(tempDir(t), 'store.db')}` }
  const api = `http://127.0.0.1:${port}`
  const instance = await startServe({ ...env, PORT: String(port), ADMIN_PORT: String(adminPort), LOG_LEVEL: 'info' }, api)
  t.after(() => killServes([instance]))
  const cli = async <T>(...args: string[]): Promise<T> => {
    const result = await runCli(args, env)
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`)
    return JSON.parse(result.stdout) as T
  }
  return { env, api, admin: `http://127.0.0.1:${adminPort}`, cli }
}

/** A key as the operator API answers it (getKey). */
async function readKey(service: Service, token: string, id: string): Promise<{ scopes: string[] }> {
  const response = await fetch(`${service.admin}/admin/v1/keys/${id}`, { headers: { authorization: `Bearer ${token}` } })
  assert.equal(response.status, 200)
  return (await response.json()) as { scopes: string[] }
}

async function operator(service: Service, role: 'admin' | 'viewer', name: string) {
  return service.cli<{ id: string; token: string }>('operators', 'create', '--role', role, '--name', name, '--json')
}

/** Sends `count` requests with the key, one after another; answers the statuses and codes seen. */
async function traffic(api: string, key: string, count: number): Promise<Record<string, number>> {
  const seen: Record<string, number> = {}
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${api}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } })
    const outcome = response.status === 429 ? ((await response.json()) as { code: string }).code : String(response.status)
    if (response.status !== 429) await response.arrayBuffer()
    seen[outcome] = (seen[outcome] ?? 0) + 1
  }
  return seen
}

async function open(t: TestContext, origin: string, viewport = { width: 1280, height: 800 }) {
  // Local time is Paris: +01:00 in November, so a switch of zone shows.
  const context = await openChromium(t, { viewport, timezoneId: 'Europe/Paris', locale: 'en-GB', acceptDownloads: true })
  const page = context.pages()[0] ?? (await context.newPage())
  const watched = watch(context, page)
  const response = await page.goto(`${origin}/`)
  assert.equal(response?.status(), 200)
  return { page, ...watched }
}

const dialog = (page: Page) => page.getByRole('dialog')

/** The migration's four plans as the Plans table shows them: ID, Name, Per minute, Per day, Per month, Customers. */
const SEEDED_PLANS = [
  ['business', 'Business', '1,000', '100,000', 'none', '0'],
  ['enterprise', 'Enterprise', 'Custom', 'Custom', 'Custom', '0'],
  ['free', 'Free', '60', '1,000', 'none', '1'],
  ['pro', 'Pro', '300', '10,000', 'none', '0']
]

/** The cells of the Plans table's rows, once it shows at least `atLeast` of them (the actions cell, when there is one, left off). */
async function planRows(page: Page, atLeast = 4): Promise<string[][]> {
  const rows = page.getByRole('table', { name: 'Plans' }).getByRole('row')
  await until(async () => (await rows.count()) > atLeast, { timeoutMs: 10_000, what: `${atLeast} plans in the table` })
  return rows.evaluateAll((nodes: { innerText: string }[]) => nodes.slice(1).map((row) => row.innerText.split('\t').slice(0, 6)))
}

describe('the operator console in a real browser', { skip: chromiumSkip('the operator console') }, () => {
  test('an admin creates a key, watches its traffic, unbans, edits, rotates and revokes it, and finds it all audited', async (t) => {
    const service = await serve(t)
    const admin = await operator(service, 'admin', 'Ada Admin')
    const acme = await service.cli<{ key: string }>('keys', 'create', '--plan', 'pro', '--name', 'Acme production', '--json')
    const mobile = await service.cli<{ key: string }>('keys', 'create', '--plan', 'business', '--name', 'Mobile app', '--json')
    const { page, requests, problems } = await open(t, service.admin)

    await page.getByLabel('Operator token').fill(`as_admin_${'x'.repeat(43)}`)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor()
    await assertAccessible(page, 'sign-in')
    await signIn(page, admin.token)
    assert.equal(await page.evaluate(() => globalThis.sessionStorage.getItem('animal-store.operator-token')), admin.token)

    // Create a key with the keyboard alone: Escape closes the dialog and gives focus back.
    const create = page.getByRole('button', { name: 'Create key' })
    await create.focus()
    await page.keyboard.press('Enter')
    await dialog(page).getByRole('combobox', { name: 'Plan' }).waitFor()
    await page.keyboard.press('Escape')
    await dialog(page).waitFor({ state: 'detached' })
    assert.equal(await focusedText(page), 'Create key', 'focus is back on the button that opened the dialog')
    await page.keyboard.press('Enter')
    await dialog(page).getByRole('textbox', { name: 'Name' }).fill(NAME)
    await assertAccessible(page, 'the Create key dialog')
    await dialog(page).getByRole('button', { name: 'Create' }).click()
    await dialog(page).getByText('shown once').waitFor()
    const secret = await dialog(page).getByRole('textbox', { name: 'Secret' }).inputValue()
    recordIssuedKey(secret)
    assert.match(secret, /^as_live_[0-9A-Za-z]{43}$/)
    await assertAccessible(page, 'the secret shown once')
    await dialog(page).getByRole('button', { name: 'Done' }).click()
    await dialog(page).waitFor({ state: 'detached' })
    assert.doesNotMatch(await page.content(), new RegExp(secret), 'the secret is gone once Done')

    // 130 requests in one minute window: 60 allowed, 60 rate limited, then a ban.
    await roomInMinute(20)
    assert.deepEqual(await traffic(service.api, secret, 130), { 200: 60, rate_limited: 60, api_key_banned: 10 })

    // Some traffic on the other keys too, so the screenshot shows a table in use.
    await traffic(service.api, acme.key, 25)
    await traffic(service.api, mobile.key, 8)

    const keys = page.getByRole('table', { name: 'Keys' })
    const row = rowLinking(keys, NAME)
    await refreshUntil(
      page,
      async () => (await row.count()) === 1 && (await row.innerText()).endsWith('Banned'),
      'the new key, banned, in the Keys table'
    )
    await assertAccessible(page, 'Keys')
    await screenshot(page, 'console-keys.png', 400)
    await keys.getByRole('link', { name: NAME }).click()
    await page.getByRole('heading', { level: 1, name: NAME }).waitFor()
    const id = (await page.getByRole('definition').first().innerText()).trim()
    assert.match(id, /^key_[0-9A-Za-z]{16}$/)

    const chart = page.getByRole('img', { name: `Usage of ${NAME}` })
    await refreshUntil(page, async () => (await chartTotals(chart)).banned === 10, "the usage flush to reach the key's chart")
    assert.deepEqual(await chartTotals(chart), { allowed: 60, rateLimited: 60, banned: 10, quotaExceeded: 0 })
    for (const range of ['7 days', '30 days', '24 hours', '1 hour']) {
      await page.getByRole('button', { name: range }).click()
      assert.equal(await page.getByRole('button', { name: range }).getAttribute('aria-pressed'), 'true')
      await until(async () => (await chartTotals(chart)).rateLimited === 60, { timeoutMs: 10_000, what: `the ${range} chart` })
    }
    const legend = page.getByRole('list', { name: 'Totals, last 1 hour' }).getByRole('listitem')
    assert.deepEqual(await legend.allInnerTexts(), ['Allowed 60', 'Rate limited 60', 'Banned 10', 'Quota exceeded 0'])
    await screenshot(page, 'console-key-usage.png', 880)
    await page.getByText('Chart data').click()
    const total = page.getByRole('table', { name: new RegExp(`^Usage of `) }).getByRole('row', { name: /^Total/ })
    assert.equal(await total.innerText(), 'Total\t60\t60\t10\t0')
    await assertAccessible(page, "a key's page")

    await page.getByRole('link', { name: 'Usage' }).click()
    const top = page.getByRole('table', { name: 'Top keys' })
    await rowLinking(top, NAME).waitFor()
    assert.equal(await rowLinking(top, NAME).innerText(), `${NAME}\t${id}\tFree\t60\t60\t10\t0`)
    await page.getByRole('button', { name: 'By refused' }).click()
    await until(async () => (await top.getByRole('row').nth(1).innerText()).startsWith(NAME), {
      timeoutMs: 10_000,
      what: 'the key first by refused'
    })
    await assertAccessible(page, 'Usage')

    await page.getByRole('link', { name: 'Bans' }).click()
    const ban = rowLinking(page.getByRole('table', { name: 'Bans' }), NAME)
    const left = ban.getByRole('cell').nth(3)
    const first = await left.innerText()
    const [minutes, seconds] = first.split(':').map(Number)
    assert.ok(minutes! * 60 + seconds! > 0 && minutes! * 60 + seconds! <= 900, `${first} left of a 15-minute ban`)
    await until(async () => (await left.innerText()) !== first, { timeoutMs: 5000, what: 'the time left to count down' })
    await assertAccessible(page, 'Bans')
    await ban.getByRole('button', { name: 'Unban' }).click()
    await ban.waitFor({ state: 'detached' })
    // Unbanned, though this minute's quota stays spent: GET /v1/rate_limit takes none and says so.
    const own = await fetch(`${service.api}/v1/rate_limit`, { headers: { authorization: `Bearer ${secret}` } })
    assert.equal(((await own.json()) as { bannedUntil: unknown }).bannedUntil, null)

    // Edit the plan, rotate with no grace, revoke: each over the operator API, each audited.
    await page.goto(`${service.admin}/#/keys/${id}`)
    await page.getByRole('heading', { level: 1, name: NAME }).waitFor()
    await page.getByRole('button', { name: 'Edit' }).click()
    await dialog(page).getByRole('combobox', { name: 'Plan' }).selectOption('pro')
    await dialog(page).getByRole('button', { name: 'Save' }).click()
    await dialog(page).waitFor({ state: 'detached' })
    await page.getByText('300 a minute, 10,000 a day').waitFor()
    await page.getByRole('button', { name: 'Rotate' }).click()
    await dialog(page).getByRole('spinbutton', { name: 'Grace seconds' }).fill('0')
    await dialog(page).getByRole('button', { name: 'Rotate' }).click()
    await dialog(page).getByText('shown once').waitFor()
    const rotated = await dialog(page).getByRole('textbox', { name: 'Secret' }).inputValue()
    recordIssuedKey(rotated)
    assert.notEqual(rotated, secret)
    await dialog(page).getByRole('button', { name: 'Done' }).click()
    assert.equal((await fetch(`${service.api}/v1/rate_limit`, { headers: { authorization: `Bearer ${rotated}` } })).status, 200)
    assert.equal((await fetch(`${service.api}/v1/rate_limit`, { headers: { authorization: `Bearer ${secret}` } })).status, 401)
    await page.getByRole('button', { name: 'Revoke' }).click()
    await dialog(page).getByRole('button', { name: 'Revoke' }).click()
    await dialog(page).waitFor({ state: 'detached' })
    await page.getByRole('definition').filter({ hasText: 'Revoked' }).first().waitFor()
    assert.equal((await fetch(`${service.api}/v1/rate_limit`, { headers: { authorization: `Bearer ${rotated}` } })).status, 401)

    await page.getByRole('link', { name: 'Audit' }).click()
    await page.getByRole('textbox', { name: 'Key' }).fill(id)
    const audit = page.getByRole('table', { name: 'Audit log' })
    await until(async () => (await audit.getByRole('row').count()) === 6, { timeoutMs: 10_000, what: "the key's five events" })
    const actions = await audit
      .getByRole('row')
      .evaluateAll((rows: { innerText: string }[]) => rows.slice(1).map((row) => row.innerText.split('\t').slice(1, 3)))
    assert.deepEqual(actions, [
      ['Ada Admin (operator)', 'key.revoke'],
      ['Ada Admin (operator)', 'key.rotate'],
      ['Ada Admin (operator)', 'key.update'],
      ['Ada Admin (operator)', 'key.unban'],
      ['Ada Admin (operator)', 'key.create']
    ])
    assert.match(await audit.getByRole('row').nth(3).innerText(), /plan: free → pro/)
    await assertAccessible(page, 'Audit')

    // Export what the filter selects, in UTC, then in local time (Paris, +01:00).
    const utc = await exportCsv(page)
    assert.match(utc.name, /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.csv$/)
    assert.equal(utc.records.length, 6)
    assert.deepEqual(utc.records[0]?.slice(0, 5), ['Time', 'Actor type', 'Actor ID', 'Actor', 'Action'])
    assert.deepEqual(
      utc.records.slice(1).map((record) => [record[3], record[4], record[6], record[7]]),
      [...['key.revoke', 'key.rotate', 'key.update', 'key.unban', 'key.create'].map((action) => ['Ada Admin', action, id, NAME])]
    )
    for (const record of utc.records.slice(1)) assert.match(record[0] ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/)
    const shownUtc = await audit.getByRole('row').nth(1).getByRole('cell').first().innerText()
    await page.getByRole('button', { name: 'Local' }).click()
    assert.equal(await page.getByRole('button', { name: 'Local' }).getAttribute('aria-pressed'), 'true')
    const shownLocal = await audit.getByRole('row').nth(1).getByRole('cell').first().innerText()
    assert.match(shownUtc, / UTC$/)
    assert.match(shownLocal, / \+01:00$/)
    const local = await exportCsv(page)
    for (const record of local.records.slice(1)) assert.match(record[0] ?? '', /\+01:00$/)
    assert.equal(Date.parse(local.records[1]![0]!), Date.parse(utc.records[1]![0]!), 'the same moment in either zone')

    // A read-only key: both scopes checked for a new key, pets:write unchecked; the API refuses it a write.
    await page.getByRole('link', { name: 'Keys' }).click()
    await page.getByRole('button', { name: 'Create key' }).click()
    const scope = (name: string) => dialog(page).getByRole('checkbox', { name, exact: true })
    assert.deepEqual([await scope('pets:read').isChecked(), await scope('pets:write').isChecked()], [true, true], 'a new key has both')
    await dialog(page).getByRole('textbox', { name: 'Name' }).fill('Catalogue reader')
    await scope('pets:write').uncheck()
    await assertAccessible(page, 'the Create key dialog with a scope unchecked')
    await page.mouse.move(0, 0)
    await dialog(page).screenshot({ path: join(ROOT, 'test-output', 'console-key-scopes.png') })
    await dialog(page).getByRole('button', { name: 'Create' }).click()
    await dialog(page).getByText('shown once').waitFor()
    const reader = await dialog(page).getByRole('textbox', { name: 'Secret' }).inputValue()
    recordIssuedKey(reader)
    await dialog(page).getByRole('button', { name: 'Done' }).click()
    await dialog(page).waitFor({ state: 'detached' })
    await rowLinking(keys, 'Catalogue reader').waitFor()
    await keys.getByRole('link', { name: 'Catalogue reader' }).click()
    await page.getByRole('heading', { level: 1, name: 'Catalogue reader' }).waitFor()
    const readerId = (await page.getByRole('definition').first().innerText()).trim()
    const scopesShown = page.getByRole('definition').filter({ has: page.getByText(/^pets:/) })
    assert.equal(await scopesShown.innerText(), 'pets:read', "the key's page shows its scopes")
    assert.deepEqual((await readKey(service, admin.token, readerId)).scopes, ['pets:read'])
    const headers = { authorization: `Bearer ${reader}`, 'content-type': 'application/json' }
    const refused = await fetch(`${service.api}/v1/pets`, { method: 'POST', headers, body: JSON.stringify({ name: 'Rex', categoryId: 1 }) })
    assert.equal(refused.status, 403)
    assert.equal(((await refused.json()) as { code: string }).code, 'insufficient_scope')
    assert.deepEqual(await traffic(service.api, reader, 1), { 200: 1 }, 'a read-only key reads')

    // Edit it back to both: the dialog shows the key's scopes, and Save sends the change.
    await page.getByRole('button', { name: 'Edit' }).click()
    assert.deepEqual([await scope('pets:read').isChecked(), await scope('pets:write').isChecked()], [true, false], "the key's scopes")
    await scope('pets:write').check()
    await assertAccessible(page, 'the Edit dialog')
    await dialog(page).getByRole('button', { name: 'Save' }).click()
    await dialog(page).waitFor({ state: 'detached' })
    await until(async () => (await scopesShown.innerText()) === 'pets:read, pets:write', { timeoutMs: 10_000, what: 'both scopes shown' })
    assert.deepEqual((await readKey(service, admin.token, readerId)).scopes, ['pets:read', 'pets:write'])
    await page.getByRole('link', { name: 'Audit' }).click()
    await page.getByRole('textbox', { name: 'Key' }).fill(readerId)
    await until(async () => (await audit.getByRole('row').count()) === 3, { timeoutMs: 10_000, what: "the reader's two events" })
    const update = await audit.getByRole('row').nth(1).innerText()
    assert.match(update, /\tkey\.update\t/)
    assert.equal(update.split('\t')[4], 'scopes: pets:read → pets:read pets:write')

    await page.getByRole('link', { name: 'Keys' }).click()
    const all = await exportCsv(page)
    assert.equal(all.records.length, 5, 'a header and the four keys')
    assert.equal(all.records[0]?.[14], 'Scopes')
    assert.deepEqual(
      all.records.slice(1).map((record) => [record[0], record[3], record[9], record[14]]),
      [
        ['Catalogue reader', 'free', 'active', 'pets:read pets:write'],
        [NAME, 'pro', 'revoked', 'pets:read pets:write'],
        ['Mobile app', 'business', 'active', 'pets:read pets:write'],
        ['Acme production', 'pro', 'active', 'pets:read pets:write']
      ]
    )

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByLabel('Operator token').waitFor()
    const stored = await page.evaluate(
      () => JSON.stringify({ ...globalThis.sessionStorage }) + JSON.stringify({ ...globalThis.localStorage })
    )
    assert.doesNotMatch(stored, /as_admin_/, 'signed out, the token is nowhere in the browser')
    assert.equal(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie), '')
    assert.deepEqual(
      requests.filter((url) => !url.startsWith(`${service.admin}/`) && !url.startsWith('blob:')),
      [],
      'the page asked nothing of another origin'
    )
    // The one console error allowed is the browser's report of the refused sign-in (401).
    assert.deepEqual(
      problems.filter((problem) => !/status of 401/.test(problem)),
      []
    )
  })

  test('a viewer, on a phone, reads every screen and finds no control that writes; a revoked token signs out', async (t) => {
    const service = await serve(t)
    const viewer = await operator(service, 'viewer', 'Vic Viewer')
    const { key } = await service.cli<{ key: string }>('keys', 'create', '--plan', 'free', '--name', 'Scraper trial', '--json')
    await roomInMinute(20)
    assert.equal((await traffic(service.api, key, 122)).api_key_banned, 2)
    const { page, requests } = await open(t, service.admin, { width: 390, height: 844 })
    await signIn(page, viewer.token)

    const writes = ['Create key', 'Create plan', 'Edit', 'Delete', 'Rotate', 'Revoke', 'Unban']
    const noWrites = async (screen: string) => {
      for (const name of writes) assert.equal(await page.getByRole('button', { name }).count(), 0, `${name} on ${screen}`)
      await assertAccessible(page, `${screen} (viewer, 390×844)`)
    }
    await page.getByRole('table', { name: 'Keys' }).getByRole('link', { name: 'Scraper trial' }).waitFor()
    // The table scrolls inside its frame; the page itself never scrolls sideways.
    const widths = await page
      .getByRole('region', { name: 'Keys, scrollable' })
      .evaluate((frame: { scrollWidth: number; clientWidth: number }) => [frame.scrollWidth, frame.clientWidth])
    assert.ok(widths[0]! > widths[1]!, `the Keys table scrolls in its frame (${widths.join(' > ')})`)
    assert.ok(
      (await page.evaluate(
        () => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth
      )) <= 390
    )
    await noWrites('Keys')
    await page.getByRole('link', { name: 'Scraper trial' }).click()
    await page.getByRole('heading', { level: 1, name: 'Scraper trial' }).waitFor()
    await page.getByRole('img', { name: 'Usage of Scraper trial' }).waitFor()
    await noWrites("a key's page")
    for (const screen of ['Plans', 'Usage', 'Bans', 'Audit']) {
      await page.getByRole('link', { name: screen, exact: true }).click()
      await page.getByRole('heading', { level: 1, name: screen }).waitFor()
      await page
        .getByRole('status')
        .filter({ hasText: /^Loading/ })
        .waitFor({ state: 'detached' })
      await noWrites(screen)
    }
    await page.getByRole('link', { name: 'Plans', exact: true }).click()
    assert.deepEqual(await planRows(page), SEEDED_PLANS, 'a viewer reads the plans, with no column of actions')
    await page.getByRole('link', { name: 'Bans', exact: true }).click()
    await rowLinking(page.getByRole('table', { name: 'Bans' }), 'Scraper trial').waitFor()

    // Auto-refresh asks again every 10 seconds, without a click.
    const asked = () => requests.filter((url) => url.endsWith('/admin/v1/bans')).length
    const before = asked()
    await page.getByRole('button', { name: 'Auto-refresh' }).click()
    assert.equal(await page.getByRole('button', { name: 'Auto-refresh' }).getAttribute('aria-pressed'), 'true')
    await until(() => asked() > before, { timeoutMs: 15_000, what: 'an automatic refresh' })

    // A token revoked mid-session: the next call answers 401 and the console signs out.
    const revoked = await runCli(['operators', 'revoke', viewer.id], service.env)
    assert.equal(revoked.code, 0, revoked.stderr)
    await page.getByRole('button', { name: 'Refresh', exact: true }).click()
    await page.getByRole('alert').filter({ hasText: 'signed out' }).waitFor()
    await page.getByLabel('Operator token').waitFor()
    assert.equal(await page.evaluate(() => globalThis.sessionStorage.getItem('animal-store.operator-token')), null)
  })

  test("an admin lists, creates, edits and deletes plans; a plan in use is refused with the API's message", async (t) => {
    const service = await serve(t)
    const admin = await operator(service, 'admin', 'Ada Admin')
    await service.cli('keys', 'create', '--plan', 'free', '--name', 'Trial', '--json')
    const { page, requests, problems } = await open(t, service.admin)
    const api = async (method: string, path: string, body?: unknown) => {
      const headers: Record<string, string> = { authorization: `Bearer ${admin.token}` }
      const init: RequestInit = { method, headers }
      if (body !== undefined) {
        headers['content-type'] = 'application/json'
        init.body = JSON.stringify(body)
      }
      const response = await fetch(`${service.admin}/admin/v1${path}`, init)
      return { status: response.status, body: response.status === 204 ? null : ((await response.json()) as Record<string, unknown>) }
    }
    await signIn(page, admin.token)

    await page.getByRole('link', { name: 'Plans', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Plans' }).waitFor()
    assert.deepEqual(await planRows(page), SEEDED_PLANS)
    await assertAccessible(page, 'Plans')
    const plans = page.getByRole('table', { name: 'Plans' })
    const row = (id: string) => plans.getByRole('row').filter({ has: page.getByRole('rowheader', { name: id, exact: true }) })

    // Create: an id in use is refused with the API's words; a custom plan has no numbers to give.
    await page.getByRole('button', { name: 'Create plan' }).click()
    await dialog(page).getByRole('textbox', { name: 'ID' }).fill('pro')
    await dialog(page).getByRole('textbox', { name: 'Name' }).fill('Startup')
    await dialog(page).getByRole('checkbox', { name: 'Custom limits per key' }).check()
    assert.equal(await dialog(page).getByRole('spinbutton').count(), 0, 'a custom plan has no Per minute, Per day or Per month')
    await dialog(page).getByRole('checkbox', { name: 'Custom limits per key' }).uncheck()
    await dialog(page).getByRole('spinbutton', { name: 'Per minute' }).fill('120')
    await dialog(page).getByRole('spinbutton', { name: 'Per day' }).fill('2000')
    await dialog(page).getByRole('spinbutton', { name: 'Per month' }).fill('5000')
    await assertAccessible(page, 'the Create plan dialog')
    await dialog(page).getByRole('button', { name: 'Create' }).click()
    await dialog(page).getByRole('alert').filter({ hasText: 'exists already' }).waitFor()
    await dialog(page).getByRole('textbox', { name: 'ID' }).fill('startup')
    await dialog(page).getByRole('button', { name: 'Create' }).click()
    await dialog(page).waitFor({ state: 'detached' })
    await page.getByRole('status').filter({ hasText: 'Plan Startup created.' }).waitFor()
    assert.deepEqual((await planRows(page, 5))[4], ['startup', 'Startup', '120', '2,000', '5,000', '0'])

    // Edit its limits: every customer on it runs under the new ones; an emptied Per month is no monthly quota.
    await row('startup').getByRole('button', { name: 'Edit' }).click()
    await dialog(page).getByRole('heading', { name: 'Edit Startup' }).waitFor()
    await dialog(page).getByRole('spinbutton', { name: 'Per minute' }).fill('150')
    await dialog(page).getByRole('spinbutton', { name: 'Per day' }).fill('6000')
    assert.equal(await dialog(page).getByRole('spinbutton', { name: 'Per month' }).inputValue(), '5000')
    await dialog(page).getByRole('spinbutton', { name: 'Per month' }).fill('')
    await dialog(page).getByRole('button', { name: 'Save' }).click()
    await dialog(page).waitFor({ state: 'detached' })
    await until(async () => (await row('startup').innerText()).includes('6,000'), {
      timeoutMs: 10_000,
      what: 'the new limits in the table'
    })
    assert.deepEqual((await planRows(page, 5))[4], ['startup', 'Startup', '150', '6,000', 'none', '0'])
    assert.equal(await focusedText(page), 'Edit', 'focus is back on the Edit button')
    const listed = (await api('GET', '/plans')).body as unknown as { id: string; limits: unknown }[]
    assert.deepEqual(listed.find((plan) => plan.id === 'startup')?.limits, { perMinute: 150, perDay: 6000, perMonth: null })
    await screenshot(page, 'console-plans.png', 480)

    // The key dialog offers the plans by name; a key on Startup gets its numbers, and the filter finds it.
    await page.getByRole('link', { name: 'Keys', exact: true }).click()
    await page.getByRole('button', { name: 'Create key' }).click()
    const plan = dialog(page).getByRole('combobox', { name: 'Plan' })
    assert.equal(await plan.inputValue(), 'free', 'a new key starts on the plan with the fewest requests')
    assert.deepEqual(await plan.locator('option').allInnerTexts(), ['Business', 'Enterprise', 'Free', 'Pro', 'Startup'])
    await plan.selectOption({ label: 'Startup' })
    await dialog(page).getByRole('textbox', { name: 'Name' }).fill('Startup app')
    await dialog(page).getByRole('button', { name: 'Create' }).click()
    await dialog(page).getByText('shown once').waitFor()
    recordIssuedKey(await dialog(page).getByRole('textbox', { name: 'Secret' }).inputValue())
    await dialog(page).getByRole('button', { name: 'Done' }).click()
    await page.getByRole('combobox', { name: 'Plan' }).selectOption({ label: 'Startup' })
    const keys = page.getByRole('table', { name: 'Keys' })
    await until(async () => (await keys.getByRole('row').count()) === 2, { timeoutMs: 10_000, what: 'the Startup key alone' })
    assert.match(await rowLinking(keys, 'Startup app').innerText(), /^Startup app\tkey_\w{16}\tStartup\t150\/min, 6,000\/day\t/)
    const keyId = (await rowLinking(keys, 'Startup app').getByRole('cell').first().innerText()).trim()

    // Delete, refused while a key is on it: the dialog shows the API's message and changes nothing.
    await page.getByRole('link', { name: 'Plans', exact: true }).click()
    await until(async () => (await row('startup').innerText()).split('\t')[5] === '1', {
      timeoutMs: 10_000,
      what: 'one customer on Startup'
    })
    await row('startup').getByRole('button', { name: 'Delete' }).click()
    await dialog(page).getByRole('heading', { name: 'Delete Startup?' }).waitFor()
    await dialog(page).getByRole('button', { name: 'Delete' }).click()
    const refusal = dialog(page).getByRole('alert')
    await refusal.waitFor()
    const inUse = await api('DELETE', '/plans/startup')
    assert.equal(inUse.status, 409)
    assert.equal(inUse.body?.code, 'plan_in_use')
    assert.equal(await refusal.innerText(), inUse.body?.message, "the API's own message")
    await assertAccessible(page, 'a refused Delete')
    await dialog(page).getByRole('button', { name: 'Cancel' }).click()
    await dialog(page).waitFor({ state: 'detached' })

    // Once its key is on another plan, Startup goes; the keyboard lands on the heading.
    assert.equal((await api('PATCH', `/keys/${keyId}`, { plan: 'pro' })).status, 200)
    await refreshUntil(page, async () => (await row('startup').innerText()).split('\t')[5] === '0', 'no customer left on Startup')
    await row('startup').getByRole('button', { name: 'Delete' }).click()
    await dialog(page).getByRole('button', { name: 'Delete' }).click()
    await dialog(page).waitFor({ state: 'detached' })
    await row('startup').waitFor({ state: 'detached' })
    await page.getByRole('status').filter({ hasText: 'Plan Startup deleted.' }).waitFor()
    assert.equal(await focusedText(page), 'Plans', 'focus is on the heading once the row is gone')
    assert.deepEqual(
      await planRows(page),
      SEEDED_PLANS.map((seeded) => (seeded[0] === 'pro' ? [...seeded.slice(0, 5), '1'] : seeded))
    )
    assert.deepEqual(
      ((await api('GET', '/plans')).body as unknown as { id: string }[]).map((listed) => listed.id),
      ['business', 'enterprise', 'free', 'pro']
    )

    await page.getByRole('link', { name: 'Audit', exact: true }).click()
    await page.getByRole('combobox', { name: 'Action' }).selectOption('plan.delete')
    const audit = page.getByRole('table', { name: 'Audit log' })
    await until(async () => (await audit.getByRole('row').count()) === 2, { timeoutMs: 10_000, what: 'the plan.delete event' })
    assert.match(await audit.getByRole('row').nth(1).innerText(), /Ada Admin \(operator\)\tplan\.delete\tStartup/)

    assert.deepEqual(
      requests.filter((url) => !url.startsWith(`${service.admin}/`)),
      [],
      'the page asked nothing of another origin'
    )
    // The console errors allowed are the browser's reports of the two refusals (409).
    assert.deepEqual(
      problems.filter((problem) => !/status of 409/.test(problem)),
      []
    )
  })

  test('the page and its assets carry the headers of §6', async (t) => {
    const service = await serve(t)
    const page = await fetch(`${service.admin}/`)
    assert.equal(page.status, 200)
    assert.equal(page.headers.get('content-security-policy'), CSP)
    assert.equal(page.headers.get('cache-control'), 'no-store')
    assert.match(page.headers.get('content-type') ?? '', /^text\/html; charset=utf-8$/)
    const html = await page.text()
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!)
    assert.ok(assets.length >= 2, html)
    for (const asset of assets) {
      const response = await fetch(service.admin + asset)
      assert.equal(response.status, 200, asset)
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable', asset)
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', asset)
      await response.arrayBuffer()
    }
    const missing = await fetch(`${service.admin}/assets/index-00000000.js`)
    assert.equal(missing.status, 404)
    assert.equal(((await missing.json()) as { code: string }).code, 'not_found')
    const publicPort = await fetch(`${service.api}/`)
    assert.notEqual(publicPort.headers.get('content-security-policy'), CSP, 'the console is on the admin port only')
    await publicPort.arrayBuffer()
  })
})
