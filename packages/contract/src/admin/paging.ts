import Type from 'typebox'
import { DOCUMENTED_ONLY } from '../json-schema.ts'

// The operator API's lists (keys, customers, the audit log) page the same way: a page size and an
// opaque cursor from the previous page's `next` link.

export const ADMIN_PAGE_LIMIT_DEFAULT = 50

/** Page size of the operator API's lists. */
export const AdminPageLimit = Type.Integer({
  format: 'int32',
  minimum: 1,
  maximum: 100,
  default: ADMIN_PAGE_LIMIT_DEFAULT,
  description: 'Page size: a plain decimal integer from 1 to 100',
  'x-rule': 'must be a plain decimal integer from 1 to 100'
})

export const PageCursor = Type.String({
  description: 'Opaque cursor from the `next` link of the previous page, valid only with the same filters',
  'x-rule': 'must be a cursor from a next link',
  [DOCUMENTED_ONLY]: { maxLength: 256, pattern: '^[A-Za-z0-9_-]+$' }
})
