import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { describe, test } from 'node:test'
import Fastify, { type FastifyReply } from 'fastify'
import { registerWriteCoalescing } from '../src/http/write-coalescing.ts'

/** A Fastify app with write coalescing whose GET /park/:id replies wait until `turn` of them have arrived, then all are sent in one synchronous loop. */
async function parkingApp(turn: number, onTurn: (parked: Array<{ id: string, reply: FastifyReply }>) => void) {
  const logged: Array<{ msg: string, err?: { code?: string } }> = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(JSON.parse(chunk.toString('utf8')))
      done()
    }
  })
  const app = Fastify({ logger: { level: 'error', stream: sink } })
  registerWriteCoalescing(app, app.log)
  let parked: Array<{ id: string, reply: FastifyReply }> = []
  app.get<{ Params: { id: string } }>('/park/:id', (request, reply) => {
    parked.push({ id: request.params.id, reply })
    if (parked.length < turn) return
    const released = parked
    parked = []
    onTurn(released)
  })
  app.get('/now', () => ({ now: true }))
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

    const bodies = await Promise.all(Array.from({ length: turn }, async (_, i) => {
      const response = await fetch(`${origin}/park/${i}`)
      assert.equal(response.status, 200)
      return response.json()
    }))
    assert.deepEqual(bodies, Array.from({ length: turn }, (_, i) => ({ id: String(i) })))
    assert.deepEqual(unwrittenAfterSend, Array(turn).fill(true), 'nothing is written while the turn that sent the replies is still running')
    assert.deepEqual(writtenNextTurn, Array(turn).fill(true), 'every reply of the turn is written once it ends')
  })

  test('a response that cannot be written is logged and its connection closed; the rest of its turn goes out and the server keeps serving', async (t) => {
    const { app, logged, origin } = await parkingApp(2, (parked) => {
      for (const { id, reply } of parked) {
        // Headers written behind Fastify's back make its own write throw (ERR_HTTP_HEADERS_SENT) at flush time.
        if (id === 'broken') reply.raw.writeHead(200)
        reply.send({ id })
      }
    })
    t.after(() => app.close())

    const [broken, fine] = await Promise.allSettled([fetch(`${origin}/park/broken`).then((r) => r.text()), fetch(`${origin}/park/fine`).then((r) => r.json())])
    assert.equal(broken.status, 'rejected', 'the broken response ends in a closed connection, not a hang')
    assert.deepEqual(fine.status === 'fulfilled' ? fine.value : fine.reason, { id: 'fine' })
    assert.deepEqual(logged.map((line) => [line.msg, line.err?.code]), [['could not write a response; closing its connection', 'ERR_HTTP_HEADERS_SENT']])
    assert.deepEqual(await (await fetch(`${origin}/now`)).json(), { now: true })
  })
})
