import assert from 'node:assert/strict'
import { test } from 'node:test'
import Fastify from 'fastify'
import type { ErrorCode } from '@animal-store/contract'
import { compose } from '../../src/compose.ts'
import { loadConfig } from '../../src/config.ts'
import type { Actor } from '../../src/domain/actor.ts'
import { registerErrorHandling } from '../../src/http/hooks/errors/errors.ts'
import { AllowedMethods } from '../../src/http/hooks/errors/method-not-allowed.ts'
import { assertError } from '../helpers/assertions.ts'
import { sqliteBackend } from '../helpers/backends.ts'
import { recordIssuedKey } from '../helpers/logs.ts'
import { defer } from '../helpers/temp.ts'

const OPERATOR: Actor = { type: 'operator', id: 'op_test', name: 'test' }

test('the key service’s refusals answer 404 not_found and 400 validation_failed, never 500', async (t) => {
  const services = await compose(loadConfig(await sqliteBackend.environment(t)), { role: 'cli' })
  defer(t, () => services.close())
  const { keys } = services
  const revoked = await keys.create({ plan: 'free' }, OPERATOR)
  recordIssuedKey(revoked.key)
  await keys.revoke(revoked.view.id, OPERATOR)

  // The service's own refusals, thrown through the app's one error handler.
  const refusals: Record<string, [() => Promise<unknown>, ErrorCode, RegExp]> = {
    'unknown-id': [() => keys.get('key_AAAAAAAAAAAAAAAA'), 'not_found', /^no key has id "key_AAAAAAAAAAAAAAAA"$/],
    'bad-input': [
      () => keys.create({ plan: 'gold' }, OPERATOR),
      'validation_failed',
      /^plan must be one of business, enterprise, free, pro/
    ],
    'revoked-key': [
      () => keys.update(revoked.view.id, { plan: 'pro' }, OPERATOR),
      'validation_failed',
      /is revoked; a revoked key cannot be changed/
    ]
  }
  const app = Fastify()
  defer(t, () => app.close())
  registerErrorHandling(app, new AllowedMethods())
  app.get<{ Params: { name: string } }>('/refusals/:name', (request) => refusals[request.params.name]![0]())
  const origin = await app.listen({ port: 0, host: '127.0.0.1' })
  for (const [name, [, code, message]] of Object.entries(refusals)) {
    const body = await assertError(await fetch(`${origin}/refusals/${name}`), code, message)
    assert.ok(body.status < 500, name)
  }
})
