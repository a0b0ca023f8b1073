import { createCustomer, getCustomer, getCustomerUsage, listCustomers, unbanCustomer, updateCustomer } from './customers/operations.ts'
import { createKey, getKey, listKeys, revokeKey, rotateKey, unbanKey, updateKey } from './keys/operations.ts'
import type { AdminOperationSpec } from './operation.ts'
import { createPlan, deletePlan, listPlans, updatePlan } from './plans/operations.ts'
import { getCurrentOperator, getKeyUsage, getUsage, listAuditEvents, listBans, listTopKeys } from './report-operations.ts'
import { exportUsage } from './usage/export.ts'

export { ADMIN_COMMON_ERRORS, type AdminOperationSpec } from './operation.ts'
export * from './customers/operations.ts'
export * from './keys/operations.ts'
export * from './plans/operations.ts'
export * from './report-operations.ts'
export * from './usage/export.ts'

export const ADMIN_OPERATIONS: readonly AdminOperationSpec[] = [
  listKeys,
  createKey,
  getKey,
  updateKey,
  rotateKey,
  revokeKey,
  unbanKey,
  listCustomers,
  createCustomer,
  getCustomer,
  updateCustomer,
  unbanCustomer,
  getCustomerUsage,
  listPlans,
  createPlan,
  updatePlan,
  deletePlan,
  getKeyUsage,
  getUsage,
  listTopKeys,
  exportUsage,
  listBans,
  listAuditEvents,
  getCurrentOperator
]
