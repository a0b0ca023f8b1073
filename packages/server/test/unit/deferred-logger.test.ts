import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import type { Logger } from 'pino'
import { createLogger } from '../../src/base/logger.ts'
import { deferredChildLogger, DeferredLogger } from '../../src/base/deferred-logger.ts'

/** The service's logger at `level`, the lines it writes, and how many children pino made. */
function capture(level: string): { logger: Logger; lines: Record<string, unknown>[]; children: () => number } {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>)
      done()
    }
  })
  const logger = createLogger(level, sink)
  let made = 0
  const child = logger.child.bind(logger)
  logger.child = ((...args: Parameters<Logger['child']>) => {
    made++
    return child(...args)
  }) as Logger['child']
  return { logger, lines, children: () => made }
}

test('a request logger makes no pino child until a line is written at an enabled level', () => {
  const { logger, lines, children } = capture('warn')
  const log = deferredChildLogger(logger, { reqId: 'r-1' }, {})
  log.info({ method: 'GET' }, 'request')
  log.debug('detail')
  assert.equal(children(), 0)
  assert.equal(lines.length, 0)
  log.warn({ code: 'unavailable' }, 'backing store unavailable')
  assert.equal(children(), 1)
  assert.equal(lines.length, 1)
  assert.equal(lines[0]!.reqId, 'r-1')
  assert.equal(lines[0]!.msg, 'backing store unavailable')
  log.error('again')
  assert.equal(children(), 1, 'the child is made once and kept')
  assert.equal(lines[1]!.reqId, 'r-1')
})

test('bindings added before the first line are all on it, and secrets are still redacted', () => {
  const { logger, lines, children } = capture('info')
  const log = deferredChildLogger(logger, { reqId: 'r-2' }, {}).child({ trace_id: 'abc' })
  assert.ok(log instanceof DeferredLogger)
  assert.equal(children(), 0)
  log.info({ authorization: 'Bearer as_live_secret' }, 'request')
  assert.equal(lines.length, 1)
  assert.equal(lines[0]!.reqId, 'r-2')
  assert.equal(lines[0]!.trace_id, 'abc')
  assert.equal(lines[0]!.authorization, '[redacted]')
})

test('the level is the parent’s until changed, and a child option sets its own', () => {
  const { logger, lines } = capture('info')
  const log = new DeferredLogger(logger, { reqId: 'r-3' })
  assert.equal(log.level, 'info')
  assert.equal(log.isLevelEnabled('debug'), false)
  const verbose = new DeferredLogger(logger, { reqId: 'r-4' }, { level: 'debug' })
  assert.equal(verbose.level, 'debug')
  assert.equal(verbose.isLevelEnabled('debug'), true)
  verbose.debug('shown')
  assert.deepEqual(
    lines.map((line) => line.msg),
    ['shown']
  )
  log.level = 'error'
  log.warn('hidden')
  assert.equal(lines.length, 1)
})
