import assert from 'node:assert/strict'
import { connect, createServer, type Socket } from 'node:net'
import { describe, test, type TestContext } from 'node:test'
import { AnimalStoreNetworkError } from '../src/index.ts'
import { clientOf, startApp, unlimitedKey } from './helpers/service.ts'

interface DroppingProxy {
  port: number
  /** The head of every `POST /v1/pets` that passed through, as sent. */
  creates: string[]
}

/**
 * A TCP proxy in front of the service that cuts the client's connection the moment the
 * response to each of the first `drops` creates starts to come back: the service has
 * stored the pet, the client never hears of it.
 */
async function droppingProxy(t: TestContext, target: number, drops: number): Promise<DroppingProxy> {
  const creates: string[] = []
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1')
    sockets.add(client).add(upstream)
    let cutNextResponse = false
    client.on('data', (chunk: Buffer) => {
      const head = chunk.toString('latin1')
      if (head.startsWith('POST /v1/pets ')) {
        creates.push(head)
        if (drops > 0) {
          drops--
          cutNextResponse = true
        }
      }
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      if (cutNextResponse) {
        client.destroy()
        upstream.destroy()
        return
      }
      client.write(chunk)
    })
    for (const [from, to] of [
      [client, upstream],
      [upstream, client]
    ] as const) {
      from.on('error', () => to.destroy())
      from.on('close', () => to.destroy())
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => {
    for (const socket of sockets) socket.destroy()
    server.close()
  })
  return { port: (server.address() as { port: number }).port, creates }
}

function idempotencyKeyOf(head: string): string | undefined {
  return /\r\nidempotency-key: ([^\r]*)\r\n/i.exec(head)?.[1]
}

describe('a create whose connection drops', () => {
  test('is retried with the same Idempotency-Key and leaves exactly one pet', async (t) => {
    const app = await startApp(t)
    const proxy = await droppingProxy(t, Number(new URL(app.origin).port), 1)
    const { client, sent, sleeps } = clientOf(app, await unlimitedKey(app), { baseUrl: `http://127.0.0.1:${proxy.port}/v1` })

    const pet = await client.createPet({ name: 'Rex', categoryId: 9223372036854775807n })

    assert.equal(sent.length, 2, 'one attempt whose response was lost, one retry')
    assert.equal(sleeps.length, 1)
    assert.equal(proxy.creates.length, 2)
    const [first, retry] = proxy.creates.map(idempotencyKeyOf)
    assert.ok(first !== undefined && first === retry, 'the retry carries the same Idempotency-Key')
    const stored = await app.storage.pets.page({ status: undefined, afterId: undefined, limit: 10 })
    assert.deepEqual(stored, [pet], 'exactly one pet, and it is the one returned')
  })

  test('without retries left, the caller hears of the drop as an AnimalStoreNetworkError', async (t) => {
    const app = await startApp(t)
    const proxy = await droppingProxy(t, Number(new URL(app.origin).port), 1)
    const { client } = clientOf(app, await unlimitedKey(app), { baseUrl: `http://127.0.0.1:${proxy.port}/v1`, maxRetries: 0 })
    await assert.rejects(
      client.createPet({ name: 'Rex', categoryId: 1 }),
      (error: unknown) => error instanceof AnimalStoreNetworkError && error.attempts === 1
    )
  })
})
