import Type from 'typebox'
import { NoQuery } from '../../pets.ts'
import { EXAMPLE_PLAN } from '../examples.ts'
import { BODY_ERRORS, operation } from '../operation.ts'
import { NewPlan, Plan, PlanIdParams, PlanPatch, Plans } from './schemas.ts'

// The operator API's operations on plans: list, create, change, delete.

const PLAN_ID = { id: EXAMPLE_PLAN.id }

export const listPlans = operation({
  operationId: 'listPlans',
  method: 'GET',
  path: '/plans',
  summary: 'List plans',
  description: 'Every plan, by id, with how many customers are on each.',
  tag: 'Plans',
  role: 'viewer',
  query: NoQuery,
  success: { status: 200, description: 'Every plan', schema: Plans, headers: [] },
  errors: ['validation_failed'],
  examples: { success: [EXAMPLE_PLAN] }
})

export const createPlan = operation({
  operationId: 'createPlan',
  method: 'POST',
  path: '/plans',
  summary: 'Create a plan',
  description: 'Creates a plan; its id never changes. `limits: null` makes a custom plan, whose customers each carry their own limits.',
  tag: 'Plans',
  role: 'admin',
  query: NoQuery,
  body: NewPlan,
  success: { status: 201, description: 'The plan', schema: Plan, headers: [] },
  errors: [...BODY_ERRORS, 'plan_exists'],
  examples: {
    body: { id: EXAMPLE_PLAN.id, name: EXAMPLE_PLAN.name, limits: { perMinute: 120, perDay: 5000, perMonth: null } },
    success: { ...EXAMPLE_PLAN, customers: 0 }
  }
})

export const updatePlan = operation({
  operationId: 'updatePlan',
  method: 'PATCH',
  path: '/plans/{id}',
  summary: 'Change a plan',
  description:
    'Changes the name or the limits of a plan, its monthly quota included (`perMonth`; none when left out or null); every customer on it without limits of its own runs under the new limits on every instance within 5 seconds, with the counts already taken in the current windows kept.',
  tag: 'Plans',
  role: 'admin',
  params: PlanIdParams,
  query: NoQuery,
  body: PlanPatch,
  success: { status: 200, description: 'The plan', schema: Plan, headers: [] },
  errors: [...BODY_ERRORS, 'not_found'],
  examples: {
    parameters: PLAN_ID,
    body: { limits: { perMinute: 150, perDay: 6000, perMonth: 200000 } },
    success: { ...EXAMPLE_PLAN, limits: { perMinute: 150, perDay: 6000, perMonth: 200000 } }
  }
})

export const deletePlan = operation({
  operationId: 'deletePlan',
  method: 'DELETE',
  path: '/plans/{id}',
  summary: 'Delete a plan',
  description: 'Deletes a plan no customer is on; a plan in use is refused with `409 plan_in_use`.',
  tag: 'Plans',
  role: 'admin',
  params: PlanIdParams,
  query: NoQuery,
  success: { status: 204, description: 'Deleted', schema: Type.Null(), headers: [] },
  errors: ['validation_failed', 'not_found', 'plan_in_use'],
  examples: { parameters: PLAN_ID, success: null }
})
