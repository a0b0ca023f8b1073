import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test, type TestContext } from 'node:test'
import { fileURLToPath } from 'node:url'
import { parseJsonLossless } from '@animal-store/contract'
import { postJson, startApp } from '../helpers/app.ts'
import { chromiumSkip, openChromium, watch } from '../helpers/chromium.ts'

const OUTPUT = fileURLToPath(new URL('../../../../test-output/', import.meta.url))

/** What the test reads of an operation's block in the page (the project is typed without the DOM library). */
interface OperationBlock {
  id: string
  classList: { contains(token: string): boolean }
  querySelector(selector: string): { textContent: string | null; getAttribute(name: string): string | null } | null
}

/** Opens /docs in a fresh Chromium profile (closed after the test) and waits for the operations. */
async function openDocs(t: TestContext, origin: string) {
  const context = await openChromium(t, { viewport: { width: 1280, height: 1400 } })

  const page = await context.newPage()
  const { requests, problems } = watch(context, page)
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText ?? ''}`))

  const response = await page.goto(`${origin}/docs`, { waitUntil: 'networkidle' })
  assert.equal(response?.status(), 200)
  await page.locator('.opblock').first().waitFor({ timeout: 15_000 })
  return { page, problems, requests }
}

describe('/docs in a real browser', { skip: chromiumSkip('the /docs page') }, () => {
  test('renders every operation, marks getPet deprecated, and loads nothing from another origin', async (t) => {
    const app = await startApp(t)
    const { page, problems, requests } = await openDocs(t, app.origin)

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
      { id: 'operations-Rate_limits-getRateLimit', method: 'GET', path: '/rate_limit', deprecated: false },
      { id: 'operations-Usage-getUsage', method: 'GET', path: '/usage', deprecated: false }
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

  test('shows the largest int64 exactly: "Try it out" on listPets and getPet, examples and schemas', async (t) => {
    const app = await startApp(t)
    const key = await app.key({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    const created = await postJson(app, '/v1/pets', '{"name":"Max","categoryId":9223372036854775807}', { key })
    assert.equal(created.status, 201)
    const id = String((parseJsonLossless(await created.text()) as { id: number }).id)
    const { page, problems } = await openDocs(t, app.origin)

    // Authorize with the key, as a reader does.
    await page.locator('.auth-wrapper .authorize').click()
    await page.locator('.modal-ux input').fill(key)
    await page.locator('.modal-ux .auth-btn-wrapper .authorize').click()
    await page.locator('.modal-ux .btn-done').click()

    const tryOperation = async (operation: string, fill: Record<string, string>) => {
      const block = page.locator(`#operations-Pets-${operation}`)
      await block.locator('.opblock-summary').click()
      await block.locator('.try-out__btn').click()
      for (const [name, value] of Object.entries(fill)) await block.locator(`tr[data-param-name="${name}"] input`).fill(value)
      await block.locator('.execute').click()
      const body = block.locator('.live-responses-table .response-col_description pre').first()
      await body.waitFor({ timeout: 15_000 })
      return body.innerText()
    }
    const listed = await tryOperation('listPets', { limit: '5' })
    assert.match(listed, /"categoryId": 9223372036854775807\b/, listed)
    const got = await tryOperation('getPet', { petId: id })
    assert.match(got, /"categoryId": 9223372036854775807\b/, got)

    // The documented 200 response of getPet, not the live one "Try it out" put above it: its
    // example value (2^53 + 1 and the largest int64), then its schema, categoryId's range in words.
    const getPet = page.locator('#operations-Pets-getPet')
    const documented = getPet.locator('.responses-table:not(.live-responses-table) tr.response[data-code="200"]')
    assert.equal(await documented.count(), 1, "getPet's documented 200 response")
    const example = documented.locator('.example')
    assert.equal(await example.count(), 1, 'its example value')
    const exampleText = await example.innerText()
    assert.match(exampleText, /"id": 9007199254740993\b/, exampleText)
    assert.match(exampleText, /"categoryId": 9223372036854775807\b/, exampleText)
    await documented.locator('.tablinks[data-name="model"]').click()
    await documented.locator('.json-schema-2020-12-accordion').first().click()
    await documented.locator('.json-schema-2020-12-expand-deep-button').first().click()
    const properties = documented.locator('.json-schema-2020-12-property')
    await properties.first().waitFor()
    const categoryId = (await properties.allInnerTexts()).filter((text) => text.startsWith('categoryId'))
    assert.equal(categoryId.length, 1, 'one categoryId property in the schema')
    assert.match(categoryId[0]!, /int64[\s\S]*1 to 9223372036854775807\b/, categoryId[0])

    mkdirSync(OUTPUT, { recursive: true })
    await page.screenshot({ path: join(OUTPUT, 'docs-int64.png'), fullPage: true })
    const html = await page.content()
    for (const rounded of ['9223372036854776000', '9223372036854775808', '9007199254740992']) {
      assert.doesNotMatch(html, new RegExp(rounded), `no rounded int64 anywhere in the page (${rounded})`)
    }
    assert.deepEqual(problems, [])
  })
})
