import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import { startApp, type TestApp } from '../helpers/app.ts'
import { sqliteBackend } from '../helpers/backends.ts'
import { chromiumSkip } from '../helpers/chromium.ts'
import { assertAccessible, createKeyInDialog, focusedText, openConsole, pageWidth, rowLinking, signIn } from '../helpers/console-page.ts'
import { recordIssuedKey } from '../helpers/logs.ts'
import { until } from '../helpers/wait.ts'

// The console's customers (docs/design.md §8, "Console additions") in Chromium, against the
// operator listener serving the built console: controls found by role and accessible name, axe-core
// on each screen. CUSTOMER_SCREENSHOTS=<dir> saves what the operator sees there, to look at.

const SHOTS = process.env.CUSTOMER_SCREENSHOTS

async function screenshot(page: Page, name: string): Promise<void> {
  if (SHOTS === undefined) return
  mkdirSync(SHOTS, { recursive: true })
  await page.mouse.move(0, 0)
  await page.screenshot({ path: join(SHOTS, name), fullPage: true })
}

interface Customer {
  id: string
  plan: string
  limits: { perMinute: number; perDay: number; perMonth: number | null }
  bannedUntil: string | null
}

async function admin<T>(app: TestApp, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' }
  const response = await app.admin(`/admin/v1${path}`, { method, token, headers, body: body === undefined ? null : JSON.stringify(body) })
  return { status: response.status, body: (await response.json()) as T }
}

const dialog = (page: Page) => page.getByRole('dialog')

/** A row's cells as the operator reads them, tab-separated (the row header first). */
const cells = async (row: Locator) => (await row.innerText()).split('\t')

describe('the console: customers', { skip: chromiumSkip('the console’s customers') }, () => {
  test('an admin creates a customer, opens its page, gives it a key, edits its plan and unbans it', async (t) => {
    // The service's clock stands still at the browser's now, so one minute window holds every request below.
    const app = await startApp(t, { backend: sqliteBackend, admin: true, now: new Date() })
    const token = await app.operator('admin', 'Ada Admin')
    const globex = await admin<Customer>(app, token, 'POST', '/customers', { name: 'Globex', plan: 'free' })
    assert.equal(globex.status, 201)
    const { page, requests, problems } = await openConsole(t, app.adminOrigin)
    await signIn(page, token)

    await page.getByRole('link', { name: 'Customers', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Customers' }).waitFor()
    const customers = page.getByRole('table', { name: 'Customers' })
    await rowLinking(customers, 'Globex').waitFor()
    const header = await customers.getByRole('row').first().innerText()
    assert.deepEqual(
      header.split('\t').map((cell) => cell.replace(/[↕▲▼]/g, '').trim()),
      ['Name', 'ID', 'External ID', 'Plan', 'Limits', 'Used', 'Keys', 'State']
    )

    // Create: a custom plan makes Per minute and Per day required; Per month (a monthly quota) never is.
    await page.getByRole('button', { name: 'Create customer' }).click()
    await dialog(page).getByRole('textbox', { name: 'Name' }).fill('Acme Corp')
    await dialog(page).getByRole('combobox', { name: 'Plan' }).selectOption({ label: 'Enterprise' })
    const month = dialog(page).getByRole('spinbutton', { name: 'Per month' })
    assert.equal(await month.isEditable(), true)
    assert.equal(await month.getAttribute('required'), null)
    assert.match((await month.getAttribute('aria-describedby')) ?? '', /\S/)
    const perMinute = dialog(page).getByRole('spinbutton', { name: 'Per minute' })
    assert.equal(await perMinute.getAttribute('required'), '', 'Enterprise is custom: its customers need their own numbers')
    await dialog(page).getByRole('combobox', { name: 'Plan' }).selectOption({ label: 'Pro' })
    assert.equal(await perMinute.getAttribute('required'), null)
    await dialog(page).getByRole('textbox', { name: 'External ID' }).fill('cus_Stripe42')
    await assertAccessible(page, 'the Create customer dialog')
    await screenshot(page, 'create-customer-dialog.png')
    await dialog(page).getByRole('button', { name: 'Create' }).click()
    await dialog(page).waitFor({ state: 'detached' })
    await page.getByRole('status').filter({ hasText: 'Customer Acme Corp created.' }).waitFor()
    assert.equal(await focusedText(page), 'Create customer', 'focus is back on the button that opened the dialog')

    // A taken external ID: the dialog shows the API's own message (409 customer_exists).
    await page.getByRole('button', { name: 'Create customer' }).click()
    await dialog(page).getByRole('textbox', { name: 'Name' }).fill('Acme again')
    await dialog(page).getByRole('textbox', { name: 'External ID' }).fill('cus_Stripe42')
    await dialog(page).getByRole('button', { name: 'Create' }).click()
    const refusal = dialog(page).getByRole('alert')
    await refusal.waitFor()
    const taken = await admin<{ code: string; message: string }>(app, token, 'POST', '/customers', {
      name: 'Acme again',
      plan: 'free',
      externalId: 'cus_Stripe42'
    })
    assert.equal(taken.status, 409)
    assert.equal(taken.body.code, 'customer_exists')
    assert.equal(await refusal.innerText(), taken.body.message, "the API's own message")
    await dialog(page).getByRole('button', { name: 'Cancel' }).click()
    await dialog(page).waitFor({ state: 'detached' })

    const acmeRow = rowLinking(customers, 'Acme Corp')
    await acmeRow.waitFor()
    const [, acmeId, ...rest] = await cells(acmeRow)
    assert.match(acmeId ?? '', /^cus_[0-9A-Za-z]{16}$/)
    assert.deepEqual(rest, ['cus_Stripe42', 'Pro', '300/min, 10,000/day', '0/min, 0/day', '0', 'Active'])
    assert.deepEqual((await cells(rowLinking(customers, 'Globex'))).slice(2), [
      'none',
      'Free',
      '60/min, 1,000/day',
      '0/min, 0/day',
      '0',
      'Active'
    ])

    // Search: by external ID, then by a name no customer has.
    await page.getByRole('searchbox', { name: 'Search customers' }).fill('stripe42')
    await until(async () => (await customers.getByRole('row').count()) === 2, { timeoutMs: 10_000, what: 'Acme Corp alone' })
    await acmeRow.waitFor()
    await page.getByRole('searchbox', { name: 'Search customers' }).fill('')
    await rowLinking(customers, 'Globex').waitFor()
    await assertAccessible(page, 'Customers')
    await screenshot(page, 'customers.png')

    // Its page: heading, usage chart, its (empty) keys.
    await customers.getByRole('link', { name: 'Acme Corp', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Acme Corp' }).waitFor()
    await page.getByRole('img', { name: 'Usage of Acme Corp' }).waitFor()
    const keys = page.getByRole('table', { name: 'Keys' })
    await keys.waitFor()
    await page.getByRole('status').filter({ hasText: 'no key yet' }).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Unban' }).count(), 0, 'no Unban while not banned')

    // "Create key" there is for this customer: no Plan nor numbers (the customer's), scopes as ever.
    await page.getByRole('button', { name: 'Create key' }).click()
    assert.equal(await dialog(page).getByRole('combobox', { name: 'Customer' }).inputValue(), acmeId)
    assert.equal(await dialog(page).getByRole('combobox', { name: 'Plan' }).count(), 0)
    assert.equal(await dialog(page).getByRole('spinbutton', { name: 'Per minute' }).count(), 0)
    const scope = (name: string) => dialog(page).getByRole('checkbox', { name, exact: true })
    assert.deepEqual([await scope('pets:read').isChecked(), await scope('pets:write').isChecked()], [true, true])
    await scope('pets:write').uncheck()
    await dialog(page).getByRole('textbox', { name: 'Name' }).fill('Acme CI')
    await assertAccessible(page, 'the Create key dialog for a customer')
    await screenshot(page, 'create-key-for-customer.png')
    await createKeyInDialog(page)
    await rowLinking(keys, 'Acme CI').waitFor()
    const [, keyId, ...keyRest] = await cells(rowLinking(keys, 'Acme CI'))
    assert.match(keyId ?? '', /^key_[0-9A-Za-z]{16}$/)
    assert.deepEqual([keyRest[0], keyRest[3]], ['pets:read', 'Active'])
    const listed = await admin<{ id: string; customerId: string; scopes: string[]; plan: string }[]>(
      app,
      token,
      'GET',
      `/keys?customer=${acmeId}`
    )
    assert.deepEqual(
      listed.body.map(({ id, customerId, scopes, plan }) => ({ id, customerId, scopes, plan })),
      [{ id: keyId, customerId: acmeId, scopes: ['pets:read'], plan: 'pro' }]
    )
    await page
      .getByRole('definition')
      .filter({ hasText: /^1 not revoked$/ })
      .waitFor()
    await assertAccessible(page, "a customer's page")
    await screenshot(page, 'customer-page.png')

    // From the Keys screen, a key for Globex, chosen in the Customer box; the table names each key's customer.
    await page.getByRole('link', { name: 'Keys', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor()
    await page.getByRole('button', { name: 'Create key' }).click()
    const customer = dialog(page).getByRole('combobox', { name: 'Customer' })
    assert.equal(await customer.inputValue(), '', 'none at first: a customer of its own, on a plan')
    await dialog(page).getByRole('combobox', { name: 'Plan' }).waitFor()
    await screenshot(page, 'create-key-own-customer.png')
    await until(async () => (await customer.locator('option').count()) === 3, { timeoutMs: 10_000, what: 'the two customers listed' })
    await customer.selectOption({ label: `Globex (${globex.body.id})` })
    await dialog(page).getByRole('combobox', { name: 'Plan' }).waitFor({ state: 'detached' })
    await dialog(page).getByText("The key shares Globex's plan (Free)").waitFor()
    await dialog(page).getByRole('textbox', { name: 'Name' }).fill('Globex web')
    await createKeyInDialog(page)
    const keysTable = page.getByRole('table', { name: 'Keys' })
    const customerOf = async (name: string) => (await cells(rowLinking(keysTable, name)))[6]
    await until(async () => (await rowLinking(keysTable, 'Globex web').count()) === 1 && (await customerOf('Globex web')) === 'Globex', {
      timeoutMs: 10_000,
      what: "Globex web's customer in the Keys table"
    })
    assert.equal(await customerOf('Acme CI'), 'Acme Corp')
    assert.equal((await cells(rowLinking(keysTable, 'Acme CI')))[2], 'Pro')
    await assertAccessible(page, 'Keys, with customers')
    await screenshot(page, 'keys.png')

    // A key's page links to its customer.
    await keysTable.getByRole('link', { name: 'Acme CI', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Acme CI' }).waitFor()
    await page.getByRole('link', { name: 'Acme Corp', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Acme Corp' }).waitFor()

    // Edit the plan: all its keys run under Business.
    await page.getByRole('button', { name: 'Edit' }).click()
    await dialog(page).getByRole('heading', { name: 'Edit Acme Corp' }).waitFor()
    assert.equal(await dialog(page).getByRole('textbox', { name: 'External ID' }).inputValue(), 'cus_Stripe42')
    await dialog(page).getByRole('combobox', { name: 'Plan' }).selectOption({ label: 'Business' })
    await assertAccessible(page, 'the Edit customer dialog')
    await dialog(page).getByRole('button', { name: 'Save' }).click()
    await dialog(page).waitFor({ state: 'detached' })
    await page.getByText('1,000 a minute, 100,000 a day').waitFor()
    const edited = await admin<Customer>(app, token, 'GET', `/customers/${acmeId}`)
    assert.deepEqual([edited.body.plan, edited.body.limits], ['business', { perMinute: 1000, perDay: 100000, perMonth: null }])
    const key = await admin<{ plan: string; limits: unknown }>(app, token, 'GET', `/keys/${keyId}`)
    assert.deepEqual([key.body.plan, key.body.limits], ['business', { perMinute: 1000, perDay: 100000, perMonth: null }])

    // A customer allowed one request a minute, banned by its key's third: "Unban" while banned, then gone.
    const tiny = await admin<Customer>(app, token, 'POST', '/customers', {
      name: 'Initech',
      plan: 'enterprise',
      limits: { perMinute: 1, perDay: 1000 }
    })
    assert.equal(tiny.status, 201, JSON.stringify(tiny.body))
    const tinyKey = await admin<{ key: string }>(app, token, 'POST', '/keys', { customerId: tiny.body.id, name: 'Initech batch' })
    assert.equal(tinyKey.status, 201, JSON.stringify(tinyKey.body))
    recordIssuedKey(tinyKey.body.key)
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) {
      const response = await app.fetch('/v1/pets?limit=1', { key: tinyKey.body.key })
      statuses.push(response.status)
      await response.arrayBuffer()
    }
    assert.deepEqual(statuses, [200, 429, 429])
    await page.goto(`${app.adminOrigin}/#/customers/${tiny.body.id}`)
    await page.getByRole('heading', { level: 1, name: 'Initech' }).waitFor()
    await page
      .getByRole('definition')
      .filter({ hasText: /^Banned until / })
      .waitFor()
    await page.getByRole('button', { name: 'Unban' }).click()
    await page.getByRole('button', { name: 'Unban' }).waitFor({ state: 'detached' })
    await page
      .getByRole('definition')
      .filter({ hasText: /^Active$/ })
      .waitFor()
    assert.equal((await admin<Customer>(app, token, 'GET', `/customers/${tiny.body.id}`)).body.bannedUntil, null)

    // The audit log names the customers and links to their pages.
    await page.getByRole('link', { name: 'Audit', exact: true }).click()
    await page.getByRole('textbox', { name: 'Key' }).fill(acmeId!)
    const audit = page.getByRole('table', { name: 'Audit log' })
    await until(async () => (await audit.getByRole('row').count()) === 3, { timeoutMs: 10_000, what: "Acme Corp's two events" })
    const events = await audit
      .getByRole('row')
      .evaluateAll((rows: { innerText: string }[]) => rows.slice(1).map((row) => row.innerText.split('\t').slice(1, 4)))
    assert.deepEqual(events, [
      ['Ada Admin (operator)', 'customer.update', `Acme Corp ${acmeId}`],
      ['Ada Admin (operator)', 'customer.create', `Acme Corp ${acmeId}`]
    ])
    assert.match(await audit.getByRole('row').nth(1).innerText(), /plan: pro → business/)
    await screenshot(page, 'audit.png')
    await audit.getByRole('link', { name: 'Acme Corp' }).first().click()
    await page.getByRole('heading', { level: 1, name: 'Acme Corp' }).waitFor()

    assert.deepEqual(
      requests.filter((url) => !url.startsWith(`${app.adminOrigin}/`)),
      [],
      'the page asked nothing of another origin'
    )
    // The console error allowed is the browser's report of the refused external ID (409).
    assert.deepEqual(
      problems.filter((problem) => !/status of 409/.test(problem)),
      []
    )
  })

  test('a viewer, on a phone, reads the customers and a customer’s page, with no control that writes', async (t) => {
    const app = await startApp(t, { backend: sqliteBackend, admin: true, now: new Date() })
    const adminToken = await app.operator('admin')
    const viewer = await app.operator('viewer', 'Vic Viewer')
    const created = await admin<Customer>(app, adminToken, 'POST', '/customers', { name: 'Umbrella', plan: 'pro', externalId: 'u-1' })
    assert.equal(created.status, 201)
    const { page } = await openConsole(t, app.adminOrigin, { width: 390, height: 844 })
    await signIn(page, viewer)
    const writes = ['Create customer', 'Create key', 'Edit', 'Unban']
    const noWrites = async (screen: string) => {
      for (const name of writes) assert.equal(await page.getByRole('button', { name }).count(), 0, `${name} on ${screen}`)
      await assertAccessible(page, `${screen} (viewer, 390×844)`)
    }
    await page.getByRole('link', { name: 'Customers', exact: true }).click()
    const customers = page.getByRole('table', { name: 'Customers' })
    await rowLinking(customers, 'Umbrella').waitFor()
    assert.ok((await pageWidth(page)) <= 390, 'the page never scrolls sideways: six sections wrap')
    await noWrites('Customers')
    await screenshot(page, 'customers-phone.png')
    await customers.getByRole('link', { name: 'Umbrella' }).click()
    await page.getByRole('heading', { level: 1, name: 'Umbrella' }).waitFor()
    await page.getByRole('img', { name: 'Usage of Umbrella' }).waitFor()
    await page.getByRole('table', { name: 'Keys' }).waitFor()
    assert.ok((await pageWidth(page)) <= 390)
    await noWrites("a customer's page")
    await screenshot(page, 'customer-page-phone.png')
  })
})
