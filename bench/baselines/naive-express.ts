// The naive baseline: the three operations written the way most people would write them.
// Express 5 + better-sqlite3 (WAL, as its README recommends; better-sqlite3 builds SQLite with
// synchronous=NORMAL for WAL, so a commit is not fsynced: NAIVE_SYNCHRONOUS=FULL makes every
// commit durable against power loss, as the service's are), statements prepared once,
// express.json() for bodies, hand-written validation, res.json() for answers, no caching:
// every request hashes the bearer token (SHA-256) and looks the hash up in the key table.
// Same wire format as the service (bare arrays, keyset cursors in a Link header, Error
// bodies); no rate limiting, idempotency, metrics or request ids.
import { createHash } from 'node:crypto'
import Database from 'better-sqlite3'
import express, { type NextFunction, type Request, type Response } from 'express'
import { NAIVE_SCHEMA } from './naive-schema.ts'

const port = Number(process.env.PORT ?? 8091)
const host = process.env.HOST ?? '127.0.0.1'
const base = `http://${host}:${port}/v1`

const db = new Database(process.env.NAIVE_DB ?? 'naive.db')
db.pragma('journal_mode = WAL')
const synchronous = process.env.NAIVE_SYNCHRONOUS
if (synchronous === 'FULL' || synchronous === 'NORMAL') db.pragma(`synchronous = ${synchronous}`)
db.exec(NAIVE_SCHEMA)

const COLUMNS = 'id, name, category_id AS categoryId, status'
const findKey = db.prepare('SELECT name FROM api_keys WHERE key_hash = ?')
const listAll = db.prepare(`SELECT ${COLUMNS} FROM pets WHERE id > ? ORDER BY id LIMIT ?`)
const listByStatus = db.prepare(`SELECT ${COLUMNS} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`)
const getById = db.prepare(`SELECT ${COLUMNS} FROM pets WHERE id = ?`)
const insert = db.prepare(`INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING ${COLUMNS}`)

interface PetRow {
  id: number
  name: string
  categoryId: number
  status: string
}
const STATUSES = ['available', 'pending', 'sold']

function fail(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ code, message, status })
}

const app = express()
app.use(express.json({ limit: '16kb' }))

app.use('/v1', (req: Request, res: Response, next: NextFunction) => {
  const header = req.get('authorization') ?? ''
  const token = header.startsWith('Bearer ') ? header.slice(7).trim() : ''
  const hash = createHash('sha256').update(token).digest('hex')
  if (token === '' || findKey.get(hash) === undefined) return fail(res, 401, 'unauthorized', 'the API key is not valid')
  next()
})

app.get('/v1/pets', (req: Request, res: Response) => {
  const limit = req.query.limit === undefined ? 20 : Number(req.query.limit)
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    return fail(res, 400, 'validation_failed', 'limit must be an integer from 1 to 100')
  const status = req.query.status
  if (status !== undefined && (typeof status !== 'string' || !STATUSES.includes(status)))
    return fail(res, 400, 'validation_failed', 'status must be available, pending or sold')
  let after = 0
  const cursor = req.query.cursor
  if (cursor !== undefined) {
    after = typeof cursor === 'string' ? Number(Buffer.from(cursor, 'base64url').toString()) : Number.NaN
    if (!Number.isInteger(after) || after < 0) return fail(res, 400, 'invalid_cursor', 'cursor is malformed')
  }
  const rows = (status === undefined ? listAll.all(after, limit + 1) : listByStatus.all(status, after, limit + 1)) as PetRow[]
  if (rows.length > limit) {
    rows.length = limit
    const cursor = Buffer.from(String(rows[limit - 1]!.id)).toString('base64url')
    res.set('link', `<${base}/pets?limit=${limit}${status === undefined ? '' : `&status=${status}`}&cursor=${cursor}>; rel="next"`)
  }
  res.json(rows)
})

app.post('/v1/pets', (req: Request, res: Response) => {
  const body = req.body as Record<string, unknown> | undefined
  if (body === undefined || typeof body !== 'object' || body === null || Array.isArray(body))
    return fail(res, 400, 'bad_request', 'the body must be a JSON object')
  const { name, categoryId, status = 'available' } = body
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200)
    return fail(res, 400, 'validation_failed', 'name must be a string of 1 to 200 characters')
  if (typeof categoryId !== 'number' || !Number.isInteger(categoryId) || categoryId < 1)
    return fail(res, 400, 'validation_failed', 'categoryId must be a positive integer')
  if (typeof status !== 'string' || !STATUSES.includes(status))
    return fail(res, 400, 'validation_failed', 'status must be available, pending or sold')
  const pet = insert.get(name, categoryId, status) as PetRow
  res.status(201).location(`${base}/pets/${pet.id}`).json(pet)
})

app.get('/v1/pets/:petId', (req: Request, res: Response) => {
  const id = Number(req.params.petId)
  const pet = Number.isInteger(id) && id > 0 ? (getById.get(id) as PetRow | undefined) : undefined
  if (pet === undefined) return fail(res, 404, 'not_found', 'no such pet')
  res.json(pet)
})

app.use((err: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
  const status = err.status ?? 500
  fail(res, status, status === 400 ? 'bad_request' : 'internal_error', status === 500 ? 'internal error' : err.message)
})

app.listen(port, host)
