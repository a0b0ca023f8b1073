import assert from 'node:assert/strict'
import type { Socket } from 'node:net'
import { Writable } from 'node:stream'
import { describe, test } from 'node:test'
import Fastify, { type FastifyReply } from 'fastify'
import { registerWriteCoalescing, SENT_TWICE, WRITE_FAILED } from '../../src/http/hooks/connections/write-coalescing.ts'

/**
 * A Fastify app with write coalescing whose GET /park/:id replies wait until `turn` of them
 * have arrived, then all are sent in one synchronous loop.
 */
async function parkingApp(turn: number, onTurn: (parked: Array<{ id: string; reply: FastifyReply }>) => void) {
  type LogLine = { msg: string; level: number; err?: { code?: string } }
  const logged: LogLine[] = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(JSON.parse(chunk.toString('utf8')) as LogLine)
      done()
    }
  })
  const app = Fastify({ logger: { level: 'warn', stream: sink } })
  registerWriteCoalescing(app, app.log)
  let parked: Array<{ id: string; reply: FastifyReply }> = []
  app.get<{ Params: { id: string } }>('/park/:id', (request, reply) => {
    parked.push({ id: request.params.id, reply })
    if (parked.length < turn) return
    const released = parked
    parked = []
    onTurn(released)
  })
  app.get('/now', () => ({ now: true }))
  app.post('/write', (_request, reply) => {
    reply.code(201).send({ created: true })
    return reply.raw.writableEnded ? undefined : reply.log.fatal('a write was held back')
  })
  // Legal Fastify without coalescing: Fastify sends again only when the reply is not yet written.
  app.get('/send-then-resolve', async (_request, reply) => {
    await Promise.resolve()
    reply.send({ once: true })
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  assert.ok(address !== null && typeof address === 'object')
  return { app, logged, origin: `http://127.0.0.1:${address.port}` }
}

describe('write coalescing', () => {
  test('responses sent in one turn are written after it, together, each with its own body on its own connection', async (t) => {
    const turn = 5
    let unwrittenAfterSend: boolean[] = []
    let writtenNextTurn: boolean[] = []
    const { app, origin } = await parkingApp(turn, (parked) => {
      for (const { id, reply } of parked) reply.send({ id })
      unwrittenAfterSend = parked.map(({ reply }) => !reply.raw.headersSent)
      setImmediate(() => {
        writtenNextTurn = parked.map(({ reply }) => reply.raw.writableEnded)
      })
    })
    t.after(() => app.close())

    const bodies = await Promise.all(
      Array.from({ length: turn }, async (_, i) => {
        const response = await fetch(`${origin}/park/${i}`)
        assert.equal(response.status, 200)
        return response.json()
      })
    )
    assert.deepEqual(
      bodies,
      Array.from({ length: turn }, (_, i) => ({ id: String(i) }))
    )
    assert.deepEqual(unwrittenAfterSend, Array(turn).fill(true), 'nothing is written while the turn that sent the replies is still running')
    assert.deepEqual(writtenNextTurn, Array(turn).fill(true), 'every reply of the turn is written once it ends')
  })

  test(
    'a response that cannot be written is logged and its connection closed; ' +
      'the rest of its turn goes out and the server keeps serving',
    async (t) => {
      const { app, logged, origin } = await parkingApp(2, (parked) => {
        for (const { id, reply } of parked) {
          // Headers written behind Fastify's back make its own write throw (ERR_HTTP_HEADERS_SENT) at flush time.
          if (id === 'broken') reply.raw.writeHead(200)
          reply.send({ id })
        }
      })
      t.after(() => app.close())

      const [broken, fine] = await Promise.allSettled([
        fetch(`${origin}/park/broken`).then((r) => r.text()),
        fetch(`${origin}/park/fine`).then((r) => r.json())
      ])
      assert.equal(broken.status, 'rejected', 'the broken response ends in a closed connection, not a hang')
      assert.deepEqual(fine.status === 'fulfilled' ? fine.value : fine.reason, { id: 'fine' })
      assert.deepEqual(
        logged.filter((line) => line.level >= 50).map((line) => [line.level, line.msg, line.err?.code]),
        [[50, WRITE_FAILED, 'ERR_HTTP_HEADERS_SENT']]
      )
      assert.deepEqual(await (await fetch(`${origin}/now`)).json(), { now: true })
    }
  )

  test(
    'an async handler that sends and resolves with nothing gets one response, ' + 'its connection stays open, and a warning is logged',
    async (t) => {
      const { app, logged, origin } = await parkingApp(1, () => {})
      t.after(() => app.close())
      let closed = 0
      app.server.on('connection', (socket: Socket) => socket.on('close', () => closed++))

      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${origin}/send-then-resolve`)
        assert.equal(response.status, 200)
        assert.equal(await response.text(), '{"once":true}')
      }
      assert.equal(closed, 0, 'no connection was closed (a second write would have failed and closed it)')
      assert.deepEqual(
        logged.map((line) => [line.level, line.msg]),
        Array(3).fill([40, SENT_TWICE])
      )
    }
  )

  test('a response to a write goes out at once, not at the end of the turn', async (t) => {
    const { app, logged, origin } = await parkingApp(1, () => {})
    t.after(() => app.close())
    const response = await fetch(`${origin}/write`, { method: 'POST' })
    assert.equal(response.status, 201)
    assert.deepEqual(await response.json(), { created: true })
    assert.deepEqual(logged, [])
  })
})
