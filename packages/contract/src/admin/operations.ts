import { createKey, getKey, listKeys, revokeKey, rotateKey, unbanKey, updateKey } from './key-operations.ts'
import type { AdminOperationSpec } from './operation.ts'
import { getCurrentOperator, getKeyUsage, getUsage, listAuditEvents, listBans, listTopKeys } from './report-operations.ts'

export { ADMIN_COMMON_ERRORS, type AdminOperationSpec } from './operation.ts'
export * from './key-operations.ts'
export * from './report-operations.ts'

export const ADMIN_OPERATIONS: readonly AdminOperationSpec[] = [
  listKeys,
  createKey,
  getKey,
  updateKey,
  rotateKey,
  revokeKey,
  unbanKey,
  getKeyUsage,
  getUsage,
  listTopKeys,
  listBans,
  listAuditEvents,
  getCurrentOperator
]
