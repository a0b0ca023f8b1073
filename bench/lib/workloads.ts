import type { RequestPlan } from './wrk.ts'

export type WorkloadId = 'list' | 'list-status' | 'page50' | 'create' | 'get'

export interface Workload {
  id: WorkloadId
  /** What the load generator sends. */
  description: string
  /** Which ceiling and which of the service's targets it is judged by. */
  operation: 'list' | 'create' | 'get'
}

/** Write last: after it the harness deletes what it created, so reads always see the seeded store. */
export const WORKLOADS: Workload[] = [
  { id: 'list', description: 'GET /v1/pets?limit=20', operation: 'list' },
  { id: 'list-status', description: 'GET /v1/pets?limit=20&status=available', operation: 'list' },
  { id: 'page50', description: 'GET the first 50 pages of /v1/pets?limit=20, cycling the cursor URLs of Link rel=next', operation: 'list' },
  { id: 'get', description: 'GET /v1/pets/{id}, id uniformly random among the seeded pets', operation: 'get' },
  { id: 'create', description: 'POST /v1/pets {"name":"Bench","categoryId":42,"status":"pending"}', operation: 'create' }
]

export const CREATE_BODY = '{"name":"Bench","categoryId":42,"status":"pending"}'
export const LIST_PATH = '/v1/pets?limit=20'
export const LIST_STATUS_PATH = '/v1/pets?limit=20&status=available'
export const PAGES = 50

/** What a target gives the load generator: its key, the seeded ids, its own cursor URLs. */
export interface WorkloadInputs {
  maxId: number
  pagesFile: string
}

export function requestPlan(workload: WorkloadId, inputs: WorkloadInputs): RequestPlan {
  switch (workload) {
    case 'list':
      return { mode: 'static', method: 'GET', path: LIST_PATH }
    case 'list-status':
      return { mode: 'static', method: 'GET', path: LIST_STATUS_PATH }
    case 'page50':
      return { mode: 'paths', pathsFile: inputs.pagesFile }
    case 'get':
      return { mode: 'random-id', prefix: '/v1/pets/', maxId: inputs.maxId }
    case 'create':
      return { mode: 'static', method: 'POST', path: '/v1/pets', body: CREATE_BODY }
  }
}
