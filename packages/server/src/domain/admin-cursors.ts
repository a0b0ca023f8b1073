import { createHash } from 'node:crypto'
import { ApiError } from './api-error.ts'

// A cursor of the operator API's lists: the last item of the page and a fingerprint of the
// filters it was issued for, in base64url so clients treat it as opaque. Not a secret: a forged
// one only moves the start of a page the operator may read anyway.

/** The filters a list was asked with, as given (absent ones left out). */
type Filters = Record<string, string | undefined>

const fingerprint = (filters: Filters) =>
  createHash('sha256')
    .update(JSON.stringify(Object.entries(filters).filter(([, value]) => value !== undefined)))
    .digest('base64url')
    .slice(0, 8)

const MALFORMED = 'cursor is malformed: pass the cursor from a next link unchanged'

function encode(kind: string, filters: Filters, position: string[]): string {
  return Buffer.from([kind, fingerprint(filters), ...position].join(':')).toString('base64url')
}

/** The position a cursor of `kind` holds, checked against the filters of this request. */
function decode(kind: string, cursor: string, filters: Filters, parts: number): string[] {
  const text = cursor.length <= 256 && /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('latin1') : ''
  const [found, print, ...position] = text.split(':')
  if (found !== kind || print === undefined || position.length !== parts) throw new ApiError('invalid_cursor', MALFORMED)
  if (print !== fingerprint(filters))
    throw new ApiError('invalid_cursor', 'cursor was issued for other filters: keep the same filters while paging')
  return position
}

/** Keys are paged newest first by (creation time, id). */
export function encodeKeyCursor(filters: Filters, last: { createdAt: number; id: string }): string {
  return encode('k', filters, [String(last.createdAt), last.id])
}

export function decodeKeyCursor(cursor: string, filters: Filters): { createdAt: number; id: string } {
  const [createdAt = '', id = ''] = decode('k', cursor, filters, 2)
  if (!/^[0-9]{1,15}$/.test(createdAt) || !/^key_[0-9A-Za-z]{16}$/.test(id)) throw new ApiError('invalid_cursor', MALFORMED)
  return { createdAt: Number(createdAt), id }
}

/** Audit events are paged newest first by id. */
export function encodeAuditCursor(filters: Filters, lastId: string): string {
  return encode('a', filters, [lastId])
}

export function decodeAuditCursor(cursor: string, filters: Filters): string {
  const [id = ''] = decode('a', cursor, filters, 1)
  if (!/^[0-9]{1,19}$/.test(id)) throw new ApiError('invalid_cursor', MALFORMED)
  return id
}

/** Customers are paged newest first by (creation time, id). */
export function encodeCustomerCursor(filters: Filters, last: { createdAt: number; id: string }): string {
  return encode('c', filters, [String(last.createdAt), last.id])
}

export function decodeCustomerCursor(cursor: string, filters: Filters): { createdAt: number; id: string } {
  const [createdAt = '', id = ''] = decode('c', cursor, filters, 2)
  if (!/^[0-9]{1,15}$/.test(createdAt) || !/^cus_[0-9A-Za-z]{16}$/.test(id)) throw new ApiError('invalid_cursor', MALFORMED)
  return { createdAt: Number(createdAt), id }
}
