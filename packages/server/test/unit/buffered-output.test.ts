import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'
import { BufferedOutput } from '../../src/base/buffered-output.ts'
import { tempDir } from '../helpers/temp.ts'

const MODULE = fileURLToPath(new URL('../../src/base/buffered-output.ts', import.meta.url))

/** Runs `body` in a child node whose stdout is a pipe to this process; `body` sees `BufferedOutput`. */
function child(body: string): ReturnType<typeof spawn> {
  const script = `import { BufferedOutput } from ${JSON.stringify(MODULE)}\n${body}`
  return spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
}

function exitOf(process: ReturnType<typeof spawn>): Promise<{ code: number | null; stderr: string }> {
  let stderr = ''
  process.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve) => process.on('close', (code) => resolve({ code, stderr })))
}

test('lines wait until minLength characters gather, then go out together, in order; flushSync writes the rest', (t) => {
  const path = join(tempDir(t), 'out.log')
  const fd = openSync(path, 'w')
  t.after(() => closeSync(fd))
  const out = new BufferedOutput(fd, 100)
  const line = (n: number) => `{"n":${n},"name":"Ünïcödé 🐕"}\n`
  out.write(line(1))
  out.write(line(2))
  assert.equal(readFileSync(path, 'utf8'), '', 'below minLength nothing is written')
  out.write(line(3))
  out.write(line(4))
  assert.equal(readFileSync(path, 'utf8'), line(1) + line(2) + line(3) + line(4), 'crossing minLength writes every waiting line')
  out.write(line(5))
  out.flushSync()
  out.flush()
  assert.equal(readFileSync(path, 'utf8'), [1, 2, 3, 4, 5].map(line).join(''), 'each line once, multi-byte characters whole')
})

test('a reader slower than the writer gets every byte: a full pipe is waited out, not dropped', async () => {
  const lines = 20_000
  const writer = child(`
    process.stdout // libuv opens the pipe non-blocking, as a service's stdout under a supervisor is
    const out = new BufferedOutput(1, 4096)
    for (let i = 0; i < ${lines}; i++) out.write(JSON.stringify({ i, pad: 'x'.repeat(80) }) + '\\n')
    out.flushSync()
  `)
  const exited = exitOf(writer)
  writer.stdout!.pause()
  await new Promise((resolve) => setTimeout(resolve, 300)) // the pipe (64 KiB) fills long before this
  let text = ''
  writer.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()))
  writer.stdout!.resume()
  const { code, stderr } = await exited
  assert.equal(code, 0, stderr)
  const received = text.trimEnd().split('\n')
  assert.equal(received.length, lines)
  received.forEach((row, i) => assert.equal((JSON.parse(row) as { i: number }).i, i))
})

test('when the reader is gone the lines are dropped and the writer goes on', async () => {
  const writer = child(`
    process.stdout.on('error', () => {})
    await new Promise((resolve) => setTimeout(resolve, 200))
    const out = new BufferedOutput(1, 10)
    for (let i = 0; i < 1000; i++) out.write('a line that nobody reads\\n')
    out.flushSync()
    process.stderr.write('still here')
  `)
  const exited = exitOf(writer)
  writer.stdout!.destroy()
  const { code, stderr } = await exited
  assert.equal(stderr, 'still here')
  assert.equal(code, 0)
})
