import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ConfigError, describeDatabase, loadConfig } from '../../src/config.ts'
import { runCli } from '../helpers/cli.ts'

describe('database configuration', () => {
  test('postgres:// URLs carry the pool settings, with defaults', () => {
    const url = 'postgres://app:secret@db.internal:5432/store?options=-c%20search_path%3Dtenant'
    assert.deepEqual(loadConfig({ DATABASE_URL: url }).database, {
      kind: 'postgres',
      url,
      pool: { size: 10, statementTimeoutMs: 5000, connectTimeoutMs: 3000 }
    })
    const tuned = loadConfig({
      DATABASE_URL: url,
      DATABASE_POOL_SIZE: '25',
      DATABASE_STATEMENT_TIMEOUT_MS: '15000',
      DATABASE_CONNECT_TIMEOUT_MS: '500'
    }).database
    assert.deepEqual(tuned.kind === 'postgres' && tuned.pool, { size: 25, statementTimeoutMs: 15000, connectTimeoutMs: 500 })
    assert.equal(loadConfig({ DATABASE_URL: 'postgresql://localhost/store' }).database.kind, 'postgres')
    assert.equal(
      describeDatabase(loadConfig({ DATABASE_URL: url }).database),
      'postgres://app:***@db.internal:5432/store?options=-c%20search_path%3Dtenant'
    )
  })

  test('bad pool settings are refused with one clear message, whatever the backend', () => {
    for (const [name, value] of [
      ['DATABASE_POOL_SIZE', '0'],
      ['DATABASE_POOL_SIZE', 'ten'],
      ['DATABASE_POOL_SIZE', '1001'],
      ['DATABASE_STATEMENT_TIMEOUT_MS', '-5'],
      ['DATABASE_STATEMENT_TIMEOUT_MS', '1.5'],
      ['DATABASE_CONNECT_TIMEOUT_MS', '0']
    ] as const) {
      for (const DATABASE_URL of ['postgres://localhost/store', 'sqlite:./x.db']) {
        assert.throws(
          () => loadConfig({ DATABASE_URL, [name]: value }),
          (error: Error) =>
            error instanceof ConfigError &&
            error.message.startsWith(`${name}=${JSON.stringify(value)} is invalid: expected an integer from`)
        )
      }
    }
  })

  test('serve stops on a bad pool setting with one line', async () => {
    const result = await runCli(['serve'], { DATABASE_URL: 'postgres://127.0.0.1:1/none', DATABASE_POOL_SIZE: 'lots' })
    assert.equal(result.code, 1)
    assert.equal(result.stderr, 'animal-store: DATABASE_POOL_SIZE="lots" is invalid: expected an integer from 1 to 1000\n')
  })
})
