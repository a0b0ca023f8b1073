import { parsePositiveInt64, type Int64, type PetStatus, PET_STATUSES } from '@animal-store/contract'
import { ApiError } from '../api-error.ts'

// A cursor is the last id of the page and the status filter it was issued for, in
// base64url so clients treat it as opaque. It is not a secret: a forged one only moves
// the start of a page the key may read anyway.
const ALL = '*'

export function encodeCursor(status: PetStatus | undefined, lastId: Int64): string {
  return Buffer.from(`${status ?? ALL}:${lastId}`).toString('base64url')
}

export function decodeCursor(cursor: string, status: PetStatus | undefined): Int64 {
  const text = cursor.length <= 128 && /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('latin1') : ''
  const [scope, id, extra] = text.split(':')
  const lastId = id === undefined || extra !== undefined ? undefined : parsePositiveInt64(id)
  if (lastId === undefined || (scope !== ALL && !(PET_STATUSES as readonly string[]).includes(scope ?? ''))) {
    throw new ApiError('invalid_cursor', 'cursor is malformed: pass the cursor from a next link unchanged')
  }
  if (scope !== (status ?? ALL)) {
    const issuedFor = scope === ALL ? 'no status filter' : `status=${scope}`
    const given = status === undefined ? 'no status filter' : `status=${status}`
    throw new ApiError('invalid_cursor', `cursor was issued for ${issuedFor}, not ${given}: keep the same status while paging`)
  }
  return lastId
}
