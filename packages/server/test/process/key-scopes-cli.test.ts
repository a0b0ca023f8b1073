import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import type { Key, KeyWithSecret } from '@animal-store/contract'
import { runCli } from '../helpers/cli.ts'
import { recordIssuedKey } from '../helpers/logs.ts'
import { tempDir } from '../helpers/temp.ts'

test('keys create and update --scopes: a read-only key, then both; bad scopes exit 2 and change nothing', async (t) => {
  const env = { DATABASE_URL: `sqlite:${join(tempDir(t), 'store.db')}` }
  const created = await runCli(['keys', 'create', '--plan', 'free', '--scopes', 'pets:read', '--json'], env)
  assert.equal(created.code, 0, created.stderr)
  const key = JSON.parse(created.stdout) as KeyWithSecret
  recordIssuedKey(key.key)
  assert.deepEqual(key.scopes, ['pets:read'])

  const text = await runCli(['keys', 'create', '--plan', 'free'], env)
  assert.match(text.stdout, /\(free, 60\/min, 1000\/day, pets:read pets:write\)/)
  recordIssuedKey(/as_live_\w{43}/.exec(text.stdout)![0])

  for (const scopes of ['pets:admin', 'pets:read,pets:read', 'read']) {
    const refused = await runCli(['keys', 'update', key.id, '--scopes', scopes], env)
    assert.equal(refused.code, 2, scopes)
    assert.match(refused.stderr, /--scopes must be distinct scopes, each one of pets:read, pets:write/, scopes)
  }
  const unchanged = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as Key[]
  assert.deepEqual(unchanged.find((k) => k.id === key.id)?.scopes, ['pets:read'], 'a refused update changed nothing')
  const updated = await runCli(['keys', 'update', key.id, '--scopes', 'pets:write,pets:read', '--json'], env)
  assert.equal(updated.code, 0, updated.stderr)
  assert.deepEqual((JSON.parse(updated.stdout) as Key).scopes, ['pets:read', 'pets:write'])
  const list = await runCli(['keys', 'list'], env)
  assert.match(list.stdout, /SCOPES/)
  assert.match(list.stdout, /pets:read,pets:write/)
})
