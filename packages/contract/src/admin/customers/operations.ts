import { NoQuery } from '../../pets.ts'
import { EXAMPLE_BUCKETS, EXAMPLE_CUSTOMER } from '../examples.ts'
import { BODY_ERRORS, operation } from '../operation.ts'
import { UsageBuckets, UsageQuery } from '../usage/schemas.ts'
import { Customer, CustomerIdParams, CustomerPatch, Customers, ListCustomersQuery, NewCustomer } from './schemas.ts'

// The operator API's operations on customers: list, create, get, change, unban, usage.

const CUSTOMER_ID = { id: EXAMPLE_CUSTOMER.id }
const CUSTOMER = { status: 200, description: 'The customer', schema: Customer, headers: [] }

export const listCustomers = operation({
  operationId: 'listCustomers',
  method: 'GET',
  path: '/customers',
  summary: 'List customers',
  description: 'Customers, newest first, filtered by search text and plan; paged with `Link: <...>; rel="next"`.',
  tag: 'Customers',
  role: 'viewer',
  query: ListCustomersQuery,
  success: { status: 200, description: 'A page of customers', schema: Customers, headers: ['Link'] },
  errors: ['validation_failed', 'invalid_cursor'],
  examples: { parameters: { search: 'acme', plan: 'pro', limit: 50 }, success: [EXAMPLE_CUSTOMER] }
})

export const createCustomer = operation({
  operationId: 'createCustomer',
  method: 'POST',
  path: '/customers',
  summary: 'Create a customer',
  description: 'Creates a customer on a plan; `limits` (its own numbers) is required on a custom plan such as enterprise.',
  tag: 'Customers',
  role: 'admin',
  query: NoQuery,
  body: NewCustomer,
  success: { status: 201, description: 'The customer', schema: Customer, headers: [] },
  errors: [...BODY_ERRORS, 'customer_exists'],
  examples: {
    body: { name: EXAMPLE_CUSTOMER.name, plan: 'pro', externalId: EXAMPLE_CUSTOMER.externalId },
    success: { ...EXAMPLE_CUSTOMER, keys: 0, usage: { minute: 0, day: 0, month: 0 } }
  }
})

export const getCustomer = operation({
  operationId: 'getCustomer',
  method: 'GET',
  path: '/customers/{id}',
  summary: 'Get a customer',
  description: 'One customer, with the use of its windows by all its keys and any ban.',
  tag: 'Customers',
  role: 'viewer',
  params: CustomerIdParams,
  query: NoQuery,
  success: CUSTOMER,
  errors: ['validation_failed', 'not_found'],
  examples: { parameters: CUSTOMER_ID, success: EXAMPLE_CUSTOMER }
})

export const updateCustomer = operation({
  operationId: 'updateCustomer',
  method: 'PATCH',
  path: '/customers/{id}',
  summary: 'Change a customer',
  description:
    "Changes the name, external id, plan or own limits (`limits: null`: the plan's); every key of the customer runs under them on every instance within 5 seconds, counts kept. Own limits carry the customer's own monthly quota (`perMonth`; none when left out), a customer without them has its plan's.",
  tag: 'Customers',
  role: 'admin',
  params: CustomerIdParams,
  query: NoQuery,
  body: CustomerPatch,
  success: CUSTOMER,
  errors: [...BODY_ERRORS, 'not_found', 'customer_exists'],
  examples: {
    parameters: CUSTOMER_ID,
    body: { limits: { perMinute: 500, perDay: 20000, perMonth: 400000 } },
    success: { ...EXAMPLE_CUSTOMER, limits: { perMinute: 500, perDay: 20000, perMonth: 400000 }, ownLimits: true }
  }
})

export const unbanCustomer = operation({
  operationId: 'unbanCustomer',
  method: 'POST',
  path: '/customers/{id}/unban',
  summary: 'Unban a customer',
  description:
    "Lifts the ban of all the customer's keys and forgets its refusals, on every instance; a customer not banned is answered as it is.",
  tag: 'Customers',
  role: 'admin',
  params: CustomerIdParams,
  query: NoQuery,
  success: CUSTOMER,
  errors: ['validation_failed', 'not_found'],
  examples: { parameters: CUSTOMER_ID, success: EXAMPLE_CUSTOMER }
})

export const getCustomerUsage = operation({
  operationId: 'getCustomerUsage',
  method: 'GET',
  path: '/customers/{id}/usage',
  summary: "A customer's usage over time",
  description:
    "The requests of all the customer's keys by outcome in every bucket of [from, to), empty ones included (at most 3,000 buckets).",
  tag: 'Usage',
  role: 'viewer',
  params: CustomerIdParams,
  query: UsageQuery,
  success: { status: 200, description: 'Buckets, oldest first', schema: UsageBuckets, headers: [] },
  errors: ['validation_failed', 'not_found'],
  examples: {
    parameters: { ...CUSTOMER_ID, from: '2026-11-27T10:00:00Z', to: '2026-11-27T10:03:00Z', granularity: 'minute' },
    success: EXAMPLE_BUCKETS
  }
})
