import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import type { Customer, Plan } from '@animal-store/contract'
import type { Page } from 'playwright-core'
import { startApp } from '../helpers/app.ts'
import { sqliteBackend } from '../helpers/backends.ts'
import { chromiumSkip } from '../helpers/chromium.ts'
import { assertAccessible, chartTotals, exportCsv, openConsole, rowLinking, signIn } from '../helpers/console-page.ts'
import { readAdmin } from '../helpers/operator-api.ts'
import { until } from '../helpers/wait.ts'

// Monthly quotas in the console (docs/design.md §8) in Chromium, against the operator listener
// serving the built console: Per month on plans and customers, the month's usage, and requests
// refused for the quota as a fourth series of the usage chart. QUOTA_SCREENSHOTS=<dir> saves what
// the operator sees there, to look at.

const MINUTE = 60_000

async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.QUOTA_SCREENSHOTS
  if (dir === undefined) return
  mkdirSync(dir, { recursive: true })
  await page.mouse.move(0, 0)
  await page.screenshot({ path: join(dir, name), fullPage: true })
}

const dialog = (page: Page) => page.getByRole('dialog')
const definition = (page: Page, text: string) => page.getByRole('definition').filter({ hasText: text })

describe('the console: monthly quotas', { skip: chromiumSkip('the console’s monthly quotas') }, () => {
  test('an admin gives a plan and a customer a monthly quota; the chart shows requests refused for it', async (t) => {
    // The service's clock stands still at the browser's now: the minutes seeded below are in the last hour.
    const now = new Date()
    const app = await startApp(t, { backend: sqliteBackend, admin: true, now })
    const token = await app.operator('admin', 'Ada Admin')
    const { page, requests, problems } = await openConsole(t, app.adminOrigin)
    await signIn(page, token)

    // Create plan: Per month is a number field of its own, optional.
    await page.getByRole('link', { name: 'Plans', exact: true }).click()
    const plans = page.getByRole('table', { name: 'Plans' })
    const planRow = (id: string) => plans.getByRole('row').filter({ has: page.getByRole('rowheader', { name: id, exact: true }) })
    await planRow('free').waitFor()
    assert.equal((await planRow('free').innerText()).split('\t')[4], 'none', 'the seeded plans have no monthly quota')
    await page.getByRole('button', { name: 'Create plan' }).click()
    await dialog(page).getByRole('textbox', { name: 'ID' }).fill('metered')
    await dialog(page).getByRole('textbox', { name: 'Name' }).fill('Metered')
    await dialog(page).getByRole('spinbutton', { name: 'Per minute' }).fill('60')
    await dialog(page).getByRole('spinbutton', { name: 'Per day' }).fill('1000')
    const month = dialog(page).getByRole('spinbutton', { name: 'Per month' })
    assert.equal(await month.isEditable(), true)
    assert.equal(await month.getAttribute('required'), null, 'empty: no monthly quota')
    await month.fill('5000')
    await assertAccessible(page, 'the Create plan dialog with a monthly quota')
    await screenshot(page, 'create-plan-dialog.png')
    await dialog(page).getByRole('button', { name: 'Create' }).click()
    await dialog(page).waitFor({ state: 'detached' })
    await planRow('metered').waitFor()
    assert.deepEqual((await planRow('metered').innerText()).split('\t').slice(0, 6), ['metered', 'Metered', '60', '1,000', '5,000', '0'])
    const listed = await readAdmin<Plan[]>(app, '/admin/v1/plans', token)
    assert.deepEqual(listed.find((plan) => plan.id === 'metered')?.limits, { perMinute: 60, perDay: 1000, perMonth: 5000 })
    await assertAccessible(page, 'Plans, with a monthly quota')
    await screenshot(page, 'plans.png')

    // A customer on it: the table and its page show the quota and what the month has used.
    await page.getByRole('link', { name: 'Customers', exact: true }).click()
    await page.getByRole('button', { name: 'Create customer' }).click()
    await dialog(page).getByRole('textbox', { name: 'Name' }).fill('Initrode')
    await dialog(page).getByRole('combobox', { name: 'Plan' }).selectOption({ label: 'Metered' })
    await dialog(page).getByRole('button', { name: 'Create' }).click()
    await dialog(page).waitFor({ state: 'detached' })
    const customers = page.getByRole('table', { name: 'Customers' })
    await rowLinking(customers, 'Initrode').waitFor()
    const cells = (await rowLinking(customers, 'Initrode').innerText()).split('\t')
    assert.deepEqual(cells.slice(3, 5), ['Metered', '60/min, 1,000/day, 5,000/month'])
    const customerId = cells[1]!
    const { key, id: keyId } = await app.keyWithId({ customerId, name: 'Initrode web' })
    for (let i = 0; i < 3; i++) assert.equal((await app.fetch('/v1/pets?limit=1', { key })).status, 200)
    const minute = Math.floor(now.getTime() / MINUTE) * MINUTE
    // Busy minutes, until the quota runs out 30 minutes ago: every request after that is refused.
    const seeded = Array.from({ length: 24 }, (_, index) => {
      const ago = 40 - index
      return {
        keyId,
        minuteStart: minute - ago * MINUTE,
        allowed: ago > 30 ? 30 + (index % 4) * 5 : ago === 30 ? 12 : 0,
        rateLimited: ago > 30 && index % 3 === 0 ? 12 : 0,
        banned: ago === 34 || ago === 33 ? 6 : 0,
        quotaExceeded: ago < 30 ? 20 + (index % 5) * 4 : ago === 30 ? 20 : 0
      }
    })
    await app.storage.usage.add(seeded)
    const refused = seeded.reduce((sum, delta) => sum + delta.quotaExceeded, 0)
    await customers.getByRole('link', { name: 'Initrode', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Initrode' }).waitFor()
    await definition(page, "5,000 a month (the plan's)").waitFor()
    await definition(page, '3 of 5,000 this month').waitFor()

    await page.getByRole('button', { name: '1 hour' }).click()
    const chart = page.getByRole('img', { name: 'Usage of Initrode' })
    await until(async () => (await chartTotals(chart)).quotaExceeded === refused, { timeoutMs: 10_000, what: 'the quota refusals charted' })
    const legend = page.getByRole('list', { name: 'Totals, last 1 hour' }).getByRole('listitem')
    assert.deepEqual(
      (await legend.allInnerTexts()).map((item) => item.replace(/ [\d,]+$/, '')),
      ['Allowed', 'Rate limited', 'Banned', 'Quota exceeded']
    )
    await page.getByText('Chart data').click()
    const data = page.getByRole('table', { name: /^Usage of Initrode/ })
    assert.deepEqual(await data.getByRole('columnheader').allInnerTexts(), ['Time', 'Allowed', 'Rate limited', 'Banned', 'Quota exceeded'])
    assert.match(await data.getByRole('row', { name: /^Total/ }).innerText(), new RegExp(`\t${refused}$`))
    const csv = await exportCsv(page, page.getByRole('figure'))
    assert.deepEqual(csv.records[0], ['Start', 'Allowed', 'Rate limited', 'Banned', 'Quota exceeded'])
    assert.equal(
      csv.records.slice(1).reduce((sum, record) => sum + Number(record[4]), 0),
      refused
    )
    await assertAccessible(page, "a customer's page with a monthly quota")
    await screenshot(page, 'customer-page.png')

    // The Usage screen's top keys count the quota refusals too, and order by them among the refused.
    await page.getByRole('link', { name: 'Usage' }).click()
    const top = page.getByRole('table', { name: 'Top keys' })
    assert.deepEqual((await top.getByRole('columnheader').allInnerTexts()).slice(3), [
      'Allowed',
      'Rate limited',
      'Banned',
      'Quota exceeded'
    ])
    await page.getByRole('button', { name: 'By refused' }).click()
    await until(async () => (await rowLinking(top, 'Initrode web').innerText()).endsWith(`\t${refused}`), {
      timeoutMs: 10_000,
      what: "the key's quota refusals in Top keys"
    })
    await page.goBack()
    await page.getByRole('heading', { level: 1, name: 'Initrode' }).waitFor()

    // The key's page shows its customer's quota; its Edit dialog says where the quota is set.
    await page.getByRole('table', { name: 'Keys' }).getByRole('link', { name: 'Initrode web' }).click()
    await page.getByRole('heading', { level: 1, name: 'Initrode web' }).waitFor()
    await definition(page, '60 a minute, 1,000 a day, 5,000 a month').waitFor()
    await page.getByRole('button', { name: 'Edit' }).click()
    await dialog(page).getByText("The customer's monthly quota, 5,000 a month, is set on the customer's page.").waitFor()
    await dialog(page).getByRole('button', { name: 'Cancel' }).click()

    // Edit the customer: numbers of its own, a monthly quota among them.
    await page.getByRole('link', { name: 'Initrode', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Initrode' }).waitFor()
    await page.getByRole('button', { name: 'Edit' }).click()
    const field = (name: string) => dialog(page).getByRole('spinbutton', { name })
    assert.equal(await field('Per month').inputValue(), '', "on the plan's numbers, none of the customer's own")
    await field('Per minute').fill('120')
    await field('Per day').fill('2400')
    await field('Per month').fill('10000')
    await assertAccessible(page, 'the Edit customer dialog with a monthly quota')
    await dialog(page).getByRole('button', { name: 'Save' }).click()
    await dialog(page).waitFor({ state: 'detached' })
    await definition(page, "120 a minute, 2,400 a day, 10,000 a month (the customer's own)").waitFor()
    await definition(page, '3 of 10,000 this month').waitFor()
    const saved = await readAdmin<Customer>(app, `/admin/v1/customers/${customerId}`, token)
    assert.deepEqual([saved.ownLimits, saved.limits], [true, { perMinute: 120, perDay: 2400, perMonth: 10000 }])

    assert.deepEqual(
      requests.filter((url) => !url.startsWith(`${app.adminOrigin}/`) && !url.startsWith('blob:')),
      [],
      'the page asked nothing of another origin'
    )
    assert.deepEqual(problems, [])
  })
})
